"""Where each ``mteb-contrastive`` command writes, checked before any work (:mod:`mteb_contrastive.data.places`).

:func:`check_outputs` is called by :func:`mteb_contrastive.cli.main.main` before a command reads
anything: a builder's ``OUT/NAME`` must be absent, empty or its own build
(:class:`~mteb_contrastive.data.built_folder.BuiltFolder`, ``--force`` to replace anything else); every
other ``--out`` must be a folder that is there or can be made. A bad place is one line, exit status 2.
"""

from __future__ import annotations

import argparse

#: builder command -> (module, kind constant, outputs constant) of the folder it writes
BUILDERS = {
    "build-triplets": ("mteb_contrastive.data.halvest_builder", "KIND", "OUTPUTS"),
    "build-verification": ("mteb_contrastive.data.verification_builder", "KIND", "OUTPUTS"),
    "build-quoter": ("mteb_contrastive.data.quoter", "QUOTER_KIND", "OUTPUTS"),
    "build-ir-triplets": ("mteb_contrastive.data.ir_triplets", "KIND", "OUTPUTS"),
    "build-attribution": ("mteb_contrastive.data.attribution_builder", "KIND", "OUTPUTS"),
}
#: commands whose ``--out`` is a folder written into (several files or folders under it)
FOLDER_OUTPUTS = (
    "build-taln",
    "build-pan-benchmarks",
    "main",
    "evaluate",
    "report",
)

#: training commands: ``--out`` is a model folder replaced whole (:func:`check_model_folder`)
TRAINING = ("train", "train-cross-encoder", "train-reranker")
#: the file a training command writes into its model folder (``training/contrastive.py::CONFIG_FILE``)
MODEL_CONFIG_FILE = "training_config.json"

FORCE_HELP = (
    "replace whatever is at OUT/NAME; without it, only a folder this command built under NAME is replaced "
    "and anything else there is refused, untouched"
)


def add_force(parser: argparse.ArgumentParser) -> None:
    """The ``--force`` option of every builder."""
    parser.add_argument("--force", action="store_true", help=FORCE_HELP)


def builder_folder(cmd: str, args: argparse.Namespace):
    """The :class:`~mteb_contrastive.data.built_folder.BuiltFolder` a builder command will write.

    Raises:
        ValueError: a bad ``--name``.
    """
    import importlib

    from mteb_contrastive.data.built_folder import built_folder

    module, kind, outputs = BUILDERS[cmd]
    mod = importlib.import_module(module)
    return built_folder(
        args.out,
        args.name,
        getattr(mod, kind),
        cmd,
        getattr(mod, outputs),
        force=bool(getattr(args, "force", False)),
    )


def check_outputs(args: argparse.Namespace) -> None:
    """Check the output places of the parsed command ``args`` before any work.

    Raises:
        OutputPlaceError: a place that cannot be written, or (a builder) something at ``OUT/NAME`` that
            the builder did not build (:class:`~mteb_contrastive.data.built_folder.NotOwnFolder`).
    """
    from mteb_contrastive.data.places import check_output_folder

    cmd = getattr(args, "cmd", None)
    out = getattr(args, "out", None)
    if cmd in BUILDERS and out is not None:
        from mteb_contrastive.data.built_folder import check_name

        try:
            check_name(args.name)
        except ValueError:
            return  # the command's own name check says it, in its words
        builder_folder(cmd, args).check()
    elif cmd in TRAINING and out:
        check_model_folder(out)
    elif cmd in FOLDER_OUTPUTS and out:
        check_output_folder(out, "--out")


def check_model_folder(out) -> None:
    """``train*`` ``--out``: the model folder is replaced whole at the end, so it must be absent, empty or
    a model folder a training command wrote (its ``training_config.json`` names a ``recipe``).

    Raises:
        OutputPlaceError: a bad place, or a folder of something else (nothing touched).
    """
    import json
    from pathlib import Path

    from mteb_contrastive.data.places import OutputPlaceError, check_folder_parent, check_output_folder

    out = Path(out)
    check_output_folder(out, "--out")
    check_folder_parent(out, "--out")
    if not out.is_dir() or not any(out.iterdir()):
        return
    try:
        own = isinstance(json.loads((out / MODEL_CONFIG_FILE).read_text(encoding="utf-8")).get("recipe"), str)
    except (OSError, ValueError, AttributeError):
        own = False
    if not own:
        raise OutputPlaceError(
            out,
            f"--out is a folder that holds no {MODEL_CONFIG_FILE} of a trained model; training replaces its "
            "--out whole at the end, and leaves this one as it is: give a new or empty folder for --out",
        )
