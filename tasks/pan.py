"""PAN authorship-verification tasks. Declarative: metadata + protocol + where the folder is.

* ``PAN20Verification`` / ``PAN21Verification`` -- the PAN 2020 / 2021 cross-domain verification
  data (fanfiction pairs; texts on Zenodo on request only, not on the Hub). Set
  ``MTEB_CONTRASTIVE_PAN20`` / ``MTEB_CONTRASTIVE_PAN21`` (or pass ``folder=`` when making the task
  in Python: ``PAN21Verification(folder="...")``) to a folder holding
  ``validation/{pairs,truth}.jsonl`` and ``test/{pairs,truth}.jsonl`` (PAN publishes no validation
  split: hold out part of the training pairs; an optional ``train/`` is used only by fitted
  baselines). PAN20 is scored with the 2020 evaluator's rules (F0.5u with 0.5 -> "same", overall =
  mean of four), PAN21 with the 2021 rules (0.5 = non-answer, overall = mean of five).
* ``<name>Verification`` -- one task per folder built by ``mteb-contrastive build-verification``
  (``mteb_contrastive.json`` of kind ``pan-verification``), found through
  ``MTEB_CONTRASTIVE_VERIFICATION``: folders separated by ``os.pathsep``, each a dataset folder or
  a folder of them. A folder that cannot be read is skipped with a warning.

Where the folders are and their checks: :mod:`mteb_contrastive.sources.pan`; the per-folder
classes: :func:`mteb_contrastive.catalog.folder_task_classes`.
"""

from __future__ import annotations

from mteb.abstasks.task_metadata import TaskMetadata

from mteb_contrastive.protocols.verification import AbsTaskVerification
from mteb_contrastive.sources.pan import PAN20_ENV, PAN21_ENV, PANFolderFromEnv

MAIN_SCORE = "pan_platt_abstain_overall"

# The citations are data (their one-line author fields are kept as given, hence the noqa on each string).
_PAN20_CITATION = r"""
@inproceedings{kestemont2020overview,
  author = {Kestemont, Mike and Manjavacas, Enrique and Markov, Ilia and Bevendorff, Janek and Wiegmann, Matti and Stamatatos, Efstathios and Potthast, Martin and Stein, Benno},
  booktitle = {CLEF 2020 Working Notes},
  series = {CEUR Workshop Proceedings},
  volume = {2696},
  title = {Overview of the Cross-Domain Authorship Verification Task at {PAN} 2020},
  year = {2020},
}
"""  # noqa: E501

_PAN21_CITATION = r"""
@inproceedings{kestemont2021overview,
  author = {Kestemont, Mike and Manjavacas, Enrique and Markov, Ilia and Bevendorff, Janek and Wiegmann, Matti and Stamatatos, Efstathios and Stein, Benno and Potthast, Martin},
  booktitle = {CLEF 2021 Working Notes},
  series = {CEUR Workshop Proceedings},
  volume = {2936},
  title = {Overview of the Cross-Domain Authorship Verification Task at {PAN} 2021},
  year = {2021},
}
"""  # noqa: E501

#: TaskMetadata fields shared by every verification task (also those made from folders)
METADATA = dict(
    category="t2t",
    modalities=["text"],
    eval_splits=["test"],
    domains=["Fiction", "Written"],
    license="not specified",
    annotations_creators="derived",
    dialect=[],
    sample_creation="found",
    type="PairClassification",
    main_score=MAIN_SCORE,
)

#: the protocol, part of every verification task's description
PROTOCOL = (
    "Cosine similarity of two embeddings per pair; threshold, Platt scaling and abstention band fitted on "
    "validation, applied to test; official PAN metrics (AUC, c@1, F1, F0.5u, Brier, overall) for hard / Platt / "
    "Platt+abstain answers, plus mteb's pair-classification metrics."
)


class PAN20Verification(PANFolderFromEnv, AbsTaskVerification):
    pan_year = 2020
    folder_env = PAN20_ENV
    metadata = TaskMetadata(
        name="PAN20Verification",
        description=(
            "PAN 2020 cross-domain authorship verification (fanfiction pairs, closed set), "
            f"local folder from ${PAN20_ENV}. {PROTOCOL} PAN 2020 rules: "
            "F0.5u turns 0.5 into 'same', overall = mean of four."
        ),
        reference="https://pan.webis.de/clef20/pan20-web/author-identification.html",
        dataset={"path": f"${PAN20_ENV}", "revision": "local"},
        eval_langs=["eng-Latn"],
        date=("2019-01-01", "2020-06-30"),
        bibtex_citation=_PAN20_CITATION,
        **METADATA,
    )


class PAN21Verification(PANFolderFromEnv, AbsTaskVerification):
    pan_year = 2021
    folder_env = PAN21_ENV
    metadata = TaskMetadata(
        name="PAN21Verification",
        description=(
            "PAN 2021 cross-domain authorship verification (fanfiction pairs, unseen authors and fandoms), "
            f"local folder from ${PAN21_ENV}. {PROTOCOL} PAN 2021 rules: 0.5 is a non-answer, overall = mean of five."
        ),
        reference="https://pan.webis.de/clef21/pan21-web/author-identification.html",
        dataset={"path": f"${PAN21_ENV}", "revision": "local"},
        eval_langs=["eng-Latn"],
        date=("2019-01-01", "2021-06-30"),
        bibtex_citation=_PAN21_CITATION,
        **METADATA,
    )
