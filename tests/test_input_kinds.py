"""Bad input of every kind (issue 26, kinds 2, 3 and 6): the registry's cases, and generated files and numbers.

* every :data:`input_kinds.CASES` entry (the rows of ``docs/input-and-identity.md``'s table): its exit
  status and its one stderr line;
* for every command that reads a user file (:data:`input_kinds.FILE_COMMANDS`), files drawn from the
  kinds (:data:`input_kinds.FILE_KINDS`: BOM, CRLF, invalid bytes at random places, a cut last line,
  JSON lists/numbers/strings as rows, empty files, gzip and cut gzip streams) and their combinations:
  exit 0 with the result of the clean file, or exit 2 with one stderr line naming the file (and the
  line), never a traceback;
* wrong JSON types in each field of a row: exit 2 naming the line and the field;
* every numeric option of every command, with generated out-of-range values: exit 2 with one line
  naming the option, when the command line is read.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import tempfile
from pathlib import Path

import input_kinds as K
import pytest
from conftest import REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mteb_contrastive.cli import args as checks
from mteb_contrastive.cli.main import build_parser

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def one_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# --- the registry's cases ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", K.CASES, ids=[c.label for c in K.CASES])
def test_case(case, tmp_path):
    if case.runner == "mteb":  # run in this process by the test it names (a fresh mteb process: a minute)
        file, _, name = case.covered_by.partition("::")
        assert name and f"def {name}(" in (REPO / file).read_text(encoding="utf-8"), case.covered_by
        return
    tmp = tmp_path.resolve()
    command, rc, _, err = case.run(tmp)
    assert "Traceback" not in err, err
    assert rc == case.exit, (rc, err)
    if case.exit == 2:
        line = one_line(err)
    else:
        assert not any(x.startswith(("error", "mteb-contrastive: error", "mteb: error")) for x in err.splitlines())
        line = err
    for part in case.expect:
        assert part.replace("{tmp}", str(tmp)) in line, (part, line)


def test_mteb_run_batch_size_0_is_one_line(capsys):
    # issue 26: `mteb run --batch-size 0` ended in a traceback inside encoding
    from mteb.cli.build_cli import build_cli
    from mteb.cli.build_cli import run as mteb_cli_run

    from mteb_contrastive.plugin.registration import _one_line_errors, _tasks_checked_first

    (case,) = [c for c in K.CASES if c.label == "--batch-size 0 (mteb run)"]
    args = build_cli().parse_args(["run", *case.make(Path(".")), "-v", "1"])
    with pytest.raises(SystemExit) as e:
        _tasks_checked_first(_one_line_errors(mteb_cli_run))(args)
    assert e.value.code == 2
    assert one_line(capsys.readouterr().err).startswith(case.expect[0])


def test_the_registry_names_each_kind_of_the_issue():
    kinds = {c.kind for c in K.CASES}
    assert {"input files", "fields and options"} <= kinds
    labels = " ".join(c.label for c in K.CASES)
    examples = (
        "BOM",
        "CRLF",
        "cut inside a string",
        "JSON list",
        "number where the text",
        "non-UTF-8",
        "truncated .jsonl.gz",
        "empty corpus file",
        "folder given",
        "--text-field abstract",
        "--questioned-field Status",
        "--batch-size 0 (evaluate)",
        "--batch-size 0 (mteb run)",
        "--learning-rate -1",
        "--warmup-ratio 2",
        "--split-ratios 0.5 0.5 0.5",
        "--reference",
        "--predictions",
        "--mteb-task NoSuchTask",
        "empty PAN answers",
        "null id",
        "list as id",
    )
    for example in examples:
        assert example in labels, example


def test_text_field_abstract_builds_the_same_dataset_as_a_text_column(tmp_path):
    # issue 26: build-triplets could not read a CACM-style corpus whose text is in `abstract`
    rc, out, err = K.run_cli(K._triplets(K.jsonl(tmp_path / "a" / "c.jsonl", K.corpus_rows())))
    assert rc == 0, err
    rc2, out2, err2 = K.run_cli(K._triplets(K._abstract(tmp_path / "b"), "--text-field", "abstract"))
    assert rc2 == 0, err2
    info = [json.loads((Path(o.strip()) / "mteb_contrastive.json").read_text()) for o in (out, out2)]
    assert info[0]["build_id"] == info[1]["build_id"]


def test_questioned_field_marks_the_texts_questioned(tmp_path):
    # the right spelling holds the disputed text out (the wrong one is refused: see the registry)
    rc, out, err = K.run_cli(K._attribution(tmp_path, "--questioned-field", "status", "--questioned-value", "disputed"))
    assert rc == 0, err
    info = json.loads((Path(out.strip()) / "mteb_contrastive.json").read_text())
    assert info["counts"]["questioned_texts"] == 1 and info["counts"]["known_texts"] == 4


def test_train_prints_only_its_error_line(tmp_path, capsys):
    # kind 6: faiss's loader printed 11 INFO lines before train's one-line error
    import logging

    from mteb_contrastive.cli.main import main

    assert main(["train", "--docs", f"corpus={tmp_path / 'nope.jsonl'}", "--out", str(tmp_path / "m")]) == 2
    import faiss  # noqa: F401  (loaded: its loader's records would have gone out at INFO)

    assert logging.getLogger("faiss.loader").getEffectiveLevel() >= logging.WARNING
    assert (
        capsys.readouterr().err
        == f"mteb-contrastive: error: {tmp_path / 'nope.jsonl'}: file not found; check the path (or create it)\n"
    )


# --- generated files --------------------------------------------------------------------------------

_CLEAN: dict[str, object] = {}


def _clean_result(cmd: K.FileCommand) -> object:
    if cmd.name not in _CLEAN:
        with tempfile.TemporaryDirectory() as d:
            tmp = Path(d)
            path = tmp / cmd.filename
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(cmd.valid())
            rc, out, err = K.run_cli(cmd.make(tmp, path))
            assert rc == 0, err
            _CLEAN[cmd.name] = cmd.result(tmp, out)
    return _CLEAN[cmd.name]


@st.composite
def malformed(draw, cmd: K.FileCommand):
    kinds = [k for k in K.FILE_KINDS if cmd.row_kinds or not k.startswith("a JSON")]
    if cmd.refuse_only:
        refused = [k for k in kinds if cmd.outcome(k) == "refuse"]
        chosen = draw(st.lists(st.sampled_from(kinds), max_size=2, unique=True))
        chosen.insert(draw(st.integers(0, len(chosen))), draw(st.sampled_from([k for k in refused if k not in chosen])))
    else:
        chosen = draw(st.lists(st.sampled_from(kinds), max_size=3, unique=True))
    xs = draw(st.lists(st.floats(0, 1, exclude_max=True), min_size=len(chosen) + 1, max_size=len(chosen) + 1))
    gz = draw(st.sampled_from([None, *K.GZIP_KINDS])) if cmd.gzip else None
    return chosen, xs, gz


def _apply(cmd: K.FileCommand, chosen: list[str], xs: list[float], gz: str | None) -> tuple[bytes, str]:
    data = cmd.valid()
    for kind, x in zip(chosen, xs):
        data = K.FILE_KINDS[kind][0](data, x)
    outcomes = [cmd.outcome(k) for k in chosen]
    if gz is not None:
        data = gzip.compress(data, mtime=0)
        if gz.startswith("gzip stream cut"):
            data = data[: int(xs[-1] * (len(data) - 8))]  # the 8-byte trailer (CRC, size) at least is gone
        outcomes.append(cmd.outcome(gz))
    outcome = "refuse" if "refuse" in outcomes else "either" if "either" in outcomes else "accept"
    return data, outcome


def _check_file(cmd: K.FileCommand, chosen: list[str], xs: list[float], gz: str | None) -> None:
    data, outcome = _apply(cmd, chosen, xs, gz)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        path = tmp / (cmd.filename + (".gz" if gz else ""))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        rc, out, err = K.run_cli(cmd.make(tmp, path))
        assert "Traceback" not in err, err
        assert rc in ((0,) if outcome == "accept" else (2,) if outcome == "refuse" else (0, 2)), (rc, err)
        if rc == 0:
            assert not err.strip() or "error" not in err, err
            if outcome == "accept":
                assert cmd.result(tmp, out) == _clean_result(cmd)
        else:
            line = one_line(err)
            assert f"error: {path}" in line, line
            row_level = {"invalid UTF-8 byte at a random place", "a JSON list row", "a JSON number row"}
            if (
                set(chosen) & row_level
                and not set(chosen) & {"empty file", "only blank lines"}
                and gz != ("gzip stream cut at a random place")
            ):
                assert f"{path}, line " in line, line


@pytest.mark.parametrize("cmd", K.FILE_COMMANDS, ids=[c.name for c in K.FILE_COMMANDS])
def test_generated_files(cmd):
    @SETTINGS
    @given(malformed(cmd))
    def check(drawn):
        _check_file(cmd, *drawn)

    check()


@pytest.mark.parametrize(
    ("cmd", "chosen", "gz"),
    [
        (K.FILE_COMMANDS[0], ["UTF-8 BOM", "CRLF line ends"], None),
        (K.FILE_COMMANDS[0], ["UTF-8 BOM", "CRLF line ends"], "gzip-compressed (.gz)"),
        (K.FILE_COMMANDS[2], ["UTF-8 BOM", "CRLF line ends", "blank lines between rows"], None),
        (K.FILE_COMMANDS[4], ["UTF-8 BOM"], "gzip-compressed (.gz)"),
        (K.FILE_COMMANDS[5], ["UTF-8 BOM", "CRLF line ends"], None),
    ],
)
def test_bom_and_crlf_together_give_the_clean_result(cmd, chosen, gz):
    _check_file(cmd, chosen, [0.5] * (len(chosen) + 1), gz)


def test_a_truncated_gz_of_a_valid_file_is_refused_naming_it():
    _check_file(K.FILE_COMMANDS[0], [], [0.6], "gzip stream cut at a random place")


#: a value of each JSON type, as it may stand where a field's value goes
JSON_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.just(""),
    st.just("   "),
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(st.sampled_from(["a", "b"]), st.integers(0, 3), max_size=1),
)

#: (command, field) -> whether a value is right there (a whole number is a valid id)
FIELD_RULES = {
    ("build-triplets", "id"): lambda v: (
        (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, str) and v.strip())
    ),
    ("build-triplets", "text"): lambda v: False,  # JSON_VALUES holds no non-empty text
    ("build-triplets", "authors"): lambda v: False,
    ("pan-score (truth)", "id"): lambda v: isinstance(v, int) and not isinstance(v, bool),
    ("pan-score (truth)", "same"): lambda v: isinstance(v, bool) or (type(v) is int and v in (0, 1)),
    ("pan-score (answers)", "value"): lambda v: (
        (not isinstance(v, bool) and isinstance(v, (int, float)) and 0 <= v <= 1)
        or (isinstance(v, list) and len(v) == 1 and 0 <= v[0] <= 1)
    ),
}


@SETTINGS
@given(st.sampled_from(sorted(FIELD_RULES)), JSON_VALUES, st.integers(0, 3))
def test_wrong_json_types_in_each_field(key, value, row):
    cmd = next(c for c in K.FILE_COMMANDS if c.name == key[0])
    field = key[1]
    rows = [json.loads(x) for x in cmd.valid().decode().splitlines()]
    rows[row][field] = value
    if field == "id" and isinstance(value, int) and any(r["id"] == str(value) for r in rows):
        return
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        path = K.jsonl(tmp / cmd.filename, rows)
        rc, out, err = K.run_cli(cmd.make(tmp, path))
        assert "Traceback" not in err, err
        if FIELD_RULES[key](value):  # a right value: the command runs (or refuses for another reason, in one line)
            assert rc == 0 or one_line(err), err
        else:
            assert rc == 2, (value, out)
            line = one_line(err)
            assert f"{path}, line {row + 1}, field {field!r}:" in line, line
            assert "missing or empty" not in line  # what was found is named


# --- generated numbers ------------------------------------------------------------------------------

_WORDS = st.sampled_from(["abc", "", "1e", "0x10", "one"])
_FLOATS = st.floats(allow_nan=True, allow_infinity=True)

#: checked type -> values it must refuse (as command-line text)
OUT_OF_RANGE = {
    checks.positive_int: st.one_of(st.integers(max_value=0).map(str), st.sampled_from(["1.5", "2e3"]), _WORDS),
    checks.non_negative_int: st.one_of(st.integers(max_value=-1).map(str), st.just("0.5"), _WORDS),
    checks.positive_float: st.one_of(st.floats(max_value=0).map(repr), st.sampled_from(["nan", "inf", "-inf"]), _WORDS),
    checks.non_negative_float: st.one_of(st.floats(max_value=-1e-9).map(repr), st.just("nan"), _WORDS),
    checks.open_fraction: st.one_of(
        _FLOATS.filter(lambda x: math.isnan(x) or not 0 < x < 1).map(repr), st.sampled_from(["0", "1"]), _WORDS
    ),
    checks.closed_fraction: st.one_of(_FLOATS.filter(lambda x: math.isnan(x) or not 0 <= x <= 1).map(repr), _WORDS),
    checks.seed: st.one_of(st.integers(max_value=-1).map(str), st.integers(min_value=2**32).map(str), _WORDS),
    checks.steps: st.one_of(st.integers(max_value=-2).map(str), st.just("0"), _WORDS),
}


def _numeric_options():
    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    for cmd, parser in sub.choices.items():
        for a in parser._actions:
            if a.option_strings and a.type is not None and a.type not in (str,) and a.type in OUT_OF_RANGE:
                yield cmd, a


NUMERIC = list(_numeric_options())


def test_every_number_is_checked_when_the_command_line_is_read():
    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    plain = [
        f"{cmd} {a.option_strings[0]}"
        for cmd, p in sub.choices.items()
        for a in p._actions
        if a.type in (int, float) and a.choices is None
    ]
    assert not plain, f"options whose range nobody checks: {plain}"
    assert len(NUMERIC) >= 40


@pytest.mark.parametrize(("cmd", "action"), NUMERIC, ids=[f"{c} {a.option_strings[0]}" for c, a in NUMERIC])
def test_generated_out_of_range_numbers(cmd, action, capsys):
    from mteb_contrastive.cli.main import main

    option = action.option_strings[-1]
    n = action.nargs if isinstance(action.nargs, int) else 1

    @settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(OUT_OF_RANGE[action.type])
    def check(value):
        argv = [cmd, option, *([value] * n)] if n > 1 else [cmd, f"{option}={value}"]
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2
        line = one_line(capsys.readouterr().err)
        assert line.startswith(f"mteb-contrastive {cmd}: error: argument {option}") or (
            f"argument {'/'.join(action.option_strings)}" in line
        ), line

    check()
