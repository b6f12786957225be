"""tasks/ holds declarations only; the catalog and the sources find the folders (issues 12, 17)."""

from __future__ import annotations

import ast
import logging
import os
from pathlib import Path

from conftest import REPO

from mteb_contrastive import catalog, config
from mteb_contrastive.sources import folders

#: what a declaration never does: read the environment or the file system, or make classes
_FORBIDDEN_ATTRIBUTES = {
    "environ",
    "getenv",
    "read_text",
    "read_bytes",
    "is_file",
    "is_dir",
    "iterdir",
    "glob",
    "rglob",
    "exists",
}


def _non_declarations(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in _FORBIDDEN_ATTRIBUTES:
            found.append(f"{path.name}:{node.lineno}: .{node.attr}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and (node.func.id == "open" or (node.func.id == "type" and len(node.args) == 3))
        ):
            found.append(f"{path.name}:{node.lineno}: {node.func.id}(...)")
    return found


def test_scan_catches_environment_files_and_class_making(tmp_path):
    f = tmp_path / "t.py"
    f.write_text(
        "import os\nx = os.environ.get('A')\nif p.is_file():\n    C = type('C', (object,), {})\nopen('f')\n",
        encoding="utf-8",
    )
    assert sorted(_non_declarations(f)) == [
        "t.py:2: .environ",
        "t.py:3: .is_file",
        "t.py:4: type(...)",
        "t.py:5: open(...)",
    ]


def test_task_files_are_declarations_only():
    found = [x for f in sorted((REPO / "tasks").glob("*.py")) for x in _non_declarations(f)]
    assert not found, "move these into src/mteb_contrastive/catalog.py or src/mteb_contrastive/sources/:\n" + "\n".join(
        found
    )


def test_dataset_folders_one_folder_a_parent_and_a_bad_entry(tmp_path, caplog):
    for name in ("b", "a"):
        (tmp_path / "parent" / name).mkdir(parents=True)
        (tmp_path / "parent" / name / "mteb_contrastive.json").write_text("{}")
    (tmp_path / "parent" / "not-a-dataset").mkdir()
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "mteb_contrastive.json").write_text("{}")
    value = os.pathsep.join([str(tmp_path / "one"), str(tmp_path / "parent"), str(tmp_path / "missing")])
    with caplog.at_level(logging.WARNING, logger="mteb_contrastive"):
        got = folders.dataset_folders(value)
    assert got == [tmp_path / "one", tmp_path / "parent" / "a", tmp_path / "parent" / "b"]
    assert [r.getMessage() for r in caplog.records] == [
        f"{config.DATASETS_ENV}={value}: {tmp_path / 'missing'} is not a folder"
    ]


def test_a_broken_folder_is_skipped_with_one_warning(tmp_path, caplog, monkeypatch):
    good, bad = tmp_path / "Good", tmp_path / "Bad"
    for f in (good, bad):
        f.mkdir()
    (bad / "mteb_contrastive.json").write_text('{"kind": "something-else"}')
    monkeypatch.setenv(config.DATASETS_ENV, str(bad))
    with caplog.at_level(logging.WARNING, logger="mteb_contrastive"):
        assert catalog.dataset_task_classes() == []
    assert [r.getMessage() for r in caplog.records] == [
        f"skipping dataset folder {bad}: {bad}: unknown dataset kind 'something-else'"
    ]


def test_cranfield_missing_source_is_one_line_and_clears_when_the_corpus_is_there(tmp_path, monkeypatch):
    from mteb_contrastive.catalog import missing_data
    from mteb_contrastive.tasks.paragraph_vector import CranfieldIRTriplets

    monkeypatch.setenv(config.CRANFIELD_ENV, str(tmp_path))
    assert missing_data(CranfieldIRTriplets) == (
        f"CranfieldIRTriplets: {tmp_path} has no corpus.jsonl (set MTEB_CONTRASTIVE_CRANFIELD to a BEIR-layout "
        "Cranfield folder, or MTEB_CONTRASTIVE_SHARED to the shared data folder)"
    )
    (tmp_path / "corpus.jsonl").write_text('{"_id": "1", "text": "wing"}\n')
    assert missing_data(CranfieldIRTriplets) is None
