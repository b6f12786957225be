"""Bad input and silent defaults (issue 9, sections 6 and 7): one line naming the file/option and the fix, exit 2."""

from __future__ import annotations

import gzip
import json
import logging
from pathlib import Path

import pytest
from conftest import run

from mteb_contrastive.cli.main import main

TEXT = "Sentence one is here. Sentence two is here. Sentence three is here."


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def corpus_rows(language: str | None = "en"):
    # each row its own text: one text under two author sets is refused by the builders
    rows = [{"id": f"d{i}", "authors": [a], "text": f"{TEXT} Row {i} ends here."} for i, a in enumerate("AABB")]
    if language:
        for r in rows:
            r["language"] = language
    return rows


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def cli_exit(argv, capsys) -> str:
    """Run the CLI in-process; assert exit status 2 and one stderr line; return it."""
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse rejects options by exiting
        rc = exc.code
    assert rc == 2
    return one_error_line(capsys)


# --- files -----------------------------------------------------------------------------------------


def test_corpus_with_non_utf8_bytes(tmp_path, capsys):
    f = tmp_path / "c.jsonl"
    f.write_bytes(b'{"id": 1, "authors": ["A"], "text": "ok"}\n{"id": 2, "authors": ["A"], "text": "na\xefve"}\n')
    line = cli_exit(["build-triplets", str(f), "--name", "A", "--out", str(tmp_path / "o"), "--language", "en"], capsys)
    assert (
        line.startswith(f"mteb-contrastive: error: {f}, line 2: not UTF-8 text (byte 39:")
        and "re-encode the file as UTF-8" in line
    )


def test_truncated_jsonl_gz(tmp_path, capsys):
    rows = [{**r, "id": f"d{i}"} for i, r in enumerate(corpus_rows() * 50)]
    data = gzip.compress("".join(json.dumps(r) + "\n" for r in rows).encode())
    f = tmp_path / "c.jsonl.gz"
    f.write_bytes(data[: len(data) - 20])
    line = cli_exit(["build-triplets", str(f), "--name", "A", "--out", str(tmp_path / "o")], capsys)
    assert f"{f}: truncated or corrupt gzip file" in line and "re-download or re-compress it" in line


@pytest.mark.parametrize(
    "argv",
    [
        ["build-triplets", "{missing}", "--name", "A", "--out", "{out}"],
        ["build-verification", "corpus", "{missing}", "--name", "A", "--out", "{out}"],
        ["pan-score", "{missing}", "{missing}"],
    ],
)
def test_missing_corpus_or_truth_file(tmp_path, capsys, argv):
    missing = tmp_path / "nope.jsonl"
    argv = [a.format(missing=missing, out=tmp_path / "o") for a in argv]
    assert (
        cli_exit(argv, capsys) == f"mteb-contrastive: error: {missing}: file not found; check the path (or create it)"
    )


def test_repeated_qrels_row_through_the_cli(tmp_path, capsys):
    (tmp_path / "b" / "qrels").mkdir(parents=True)
    write_jsonl(tmp_path / "b" / "corpus.jsonl", [{"_id": d, "text": d} for d in ("d1", "d2")])
    write_jsonl(tmp_path / "b" / "queries.jsonl", [{"_id": "q1", "text": "q"}])
    (tmp_path / "b" / "qrels" / "test.tsv").write_text("q1\td1\t1\nq1\td2\t1\nq1\td1\t0\n")
    line = cli_exit(["build-ir-triplets", str(tmp_path / "b"), "--name", "B", "--out", str(tmp_path / "o")], capsys)
    assert "test.tsv, line 3, field 'score': query 'q1', document 'd1' already graded 1 at line 1, here 0" in line


# --- options ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, expected",
    [
        (
            ["build-triplets", "c.jsonl", "--name", "A", "--out", "o", "--k", "0"],
            "argument --k: must be 1 or more, got 0; give a whole number >= 1",
        ),
        (
            ["build-triplets", "c.jsonl", "--name", "A", "--out", "o", "--k", "2", "-3"],
            "argument --k: must be 1 or more, got -3",
        ),
        (
            ["build-triplets", "c.jsonl", "--name", "A", "--out", "o", "--n-triplets", "0"],
            "argument --n-triplets: must be 1 or more, got 0",
        ),
        (
            ["build-triplets", "c.jsonl", "--name", "my-corpus", "--out", "o"],
            "argument --name: 'my-corpus' must be letters and digits starting with a letter "
            "(it becomes the task names); give e.g. MyCorpus",
        ),
        (
            ["build-ir-triplets", "f", "--name", "my-corpus", "--out", "o"],
            "argument --name: 'my-corpus' must be letters and digits",
        ),
        (
            ["build-verification", "corpus", "c.jsonl", "--name", "my-corpus", "--out", "o"],
            "argument --name: 'my-corpus' must be letters and digits",
        ),
        (
            ["build-ir-triplets", "f", "--name", "B", "--out", "o", "--max-per-query", "0"],
            "argument --max-per-query: must be 1 or more, got 0",
        ),
        (
            ["build-verification", "corpus", "c.jsonl", "--name", "A", "--out", "o", "--chunk-words", "0"],
            "argument --chunk-words: must be 1 or more, got 0",
        ),
        (
            ["build-verification", "corpus", "c.jsonl", "--name", "A", "--out", "o", "--positive-ratio", "1"],
            "argument --positive-ratio: must be between 0 and 1 (exclusive), got 1",
        ),
        (
            ["build-triplets", "c.jsonl", "--name", "A", "--out", "o", "--k", "two"],
            "argument --k: 'two' is not a whole number; give e.g. 2",
        ),
    ],
)
def test_bad_options_are_one_line(capsys, argv, expected):
    line = cli_exit(argv, capsys)
    assert (
        line.startswith(f"mteb-contrastive {argv[0]}: error: ")
        and expected in line
        and line.endswith(f"(see mteb-contrastive {argv[0]} --help)")
    )


def test_any_k_is_accepted(tmp_path, capsys):
    f = write_jsonl(tmp_path / "c.jsonl", corpus_rows())
    assert main(["build-triplets", str(f), "--name", "A", "--out", str(tmp_path / "o"), "--k", "3", "5"]) == 0
    info = json.loads((tmp_path / "o" / "A" / "mteb_contrastive.json").read_text())
    assert sorted(info["configs"]) == ["base-3", "base-5"]


def test_help_shows_every_default(capsys):
    with pytest.raises(SystemExit):
        main(["build-triplets", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for d in (
        "(default: [2, 4, 8])",
        "--n-triplets N_TRIPLETS positives per anchor document and negatives per positive (default: 2)",
        "--seed SEED seed of the span and triplet sampling (default: 0)",
    ):
        assert d in out
    with pytest.raises(SystemExit):
        main(["build-verification", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for d in ("(default: 1000)", "(default: [0.4, 0.3, 0.3])", "(default: 20)", "(default: 0.5)"):
        assert d in out


# --- rerank model names ------------------------------------------------------------------------------


def test_rerank_any_k_and_unknown_names():
    import mteb

    meta = mteb.get_model_meta("rerank/bm25+ce@7")  # not in the registered grid (10, 50, 100): made on demand
    assert meta.name == "rerank/bm25+ce@7" and meta.revision.endswith("-k7") and meta.loader_kwargs["k"] == 7
    with pytest.raises(
        ValueError,
        match=(
            r"unknown reranker 'xx' in 'rerank/bm25\+xx@10': the rerank models are rerank/<first>\+<reranker>@<k> with "
            r"<first> in \{minilm, bm25\}, <reranker> in \{ce, li, bi\}"
        ),
    ):
        mteb.get_model_meta("rerank/bm25+xx@10")
    with pytest.raises(ValueError, match=r"k '0' in 'rerank/bm25\+ce@0' is not a whole number >= 1"):
        mteb.get_model_meta("rerank/bm25+ce@0")


def test_mteb_run_unknown_rerank_name_is_one_line_exit_2(tmp_path):
    r = run(
        [
            "mteb",
            "run",
            "-m",
            "rerank/nope",
            "-t",
            "QuoteRKJVNovelsEnglishRetrieval",
            "--output-folder",
            str(tmp_path),
            "-v",
            "0",
        ]
    )
    assert r.returncode == 2, r.stderr[-2000:]
    assert "Traceback" not in r.stderr
    errors = [x for x in r.stderr.splitlines() if "error" in x]
    assert errors == [
        "mteb: error: unknown model name 'rerank/nope': the rerank models are rerank/<first>+<reranker>@<k> with "
        "<first> in {minilm, bm25}, <reranker> in {ce, li, bi} and <k> any whole number >= 1 (e.g. rerank/bm25+ce@50)"
    ]


def test_mteb_run_missing_pan_folder_is_one_line_exit_2(tmp_path):
    r = run(
        [
            "env",
            "-u",
            "MTEB_CONTRASTIVE_PAN21",
            "mteb",
            "run",
            "-m",
            "mteb-contrastive/tfidf-words",
            "-t",
            "PAN21Verification",
            "--output-folder",
            str(tmp_path),
            "-v",
            "0",
        ]
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert r.stderr.strip().splitlines()[-1] == (
        "mteb: error: PAN21Verification: the PAN texts are not on the Hub; "
        "set MTEB_CONTRASTIVE_PAN21 to a folder with validation/ and test/ (pairs.jsonl + truth.jsonl each)"
    )


# --- languages read from the data ----------------------------------------------------------------------


def french_eltec(tmp_path: Path) -> Path:
    rows = [
        {
            "id": f"FRA18{i:02d}0_Auteur{i % 4}",
            "author": f"Auteur {i % 4}",
            "title": f"Roman {i}",
            # each novel its own words: a chunk found in two novels is refused by the builder
            "text": "Il était une fois. " + " ".join(f"mot{i}x{j}" for j in range(60)),
        }
        for i in range(16)
    ]
    f = tmp_path / "fra_novels.jsonl.gz"
    f.write_bytes(gzip.compress("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()))
    return f


def test_build_verification_eltec_french_is_labelled_french(tmp_path, capsys):
    f = french_eltec(tmp_path)
    assert (
        main(
            [
                "build-verification",
                "eltec",
                str(f),
                "--name",
                "FraEltec",
                "--out",
                str(tmp_path / "o"),
                "--chunk-words",
                "20",
                "--pairs-per-author",
                "2",
                "--split-ratios",
                "0",
                "0.5",
                "0.5",
            ]
        )
        == 0
    )
    info = json.loads((tmp_path / "o" / "FraEltec" / "mteb_contrastive.json").read_text())
    assert info["languages"] == ["fra-Latn"]
    assert "Languages: fra-Latn" in (tmp_path / "o" / "FraEltec" / "README.md").read_text()
    from mteb_contrastive.catalog import folder_task_classes

    assert folder_task_classes(tmp_path / "o" / "FraEltec", verification=True)[0].metadata.eval_langs == ["fra-Latn"]
    # a contradicting option is an error, not an override
    line = cli_exit(
        [
            "build-verification",
            "eltec",
            str(f),
            "--name",
            "FraEltec",
            "--out",
            str(tmp_path / "o"),
            "--languages",
            "eng-Latn",
        ],
        capsys,
    )
    assert "the rows' language is fra-Latn but --languages says eng-Latn; drop --languages or fix the rows" in line


def test_build_verification_corpus_without_language_requires_one(tmp_path, capsys):
    words = " ".join(f"w{j}" for j in range(60))
    f = write_jsonl(tmp_path / "c.jsonl", [{"id": f"d{i}", "author": f"a{i % 4}", "text": words} for i in range(16)])
    line = cli_exit(
        ["build-verification", "corpus", str(f), "--name", "C", "--out", str(tmp_path / "o"), "--chunk-words", "20"],
        capsys,
    )
    assert line == (
        f"mteb-contrastive: error: {f}: the documents name no language; "
        "pass --languages (mteb codes of the texts, e.g. fra-Latn) or give each row a 'language'"
    )


def test_build_triplets_reads_the_rows_language(tmp_path, capsys):
    f = write_jsonl(tmp_path / "c.jsonl", corpus_rows("fr"))
    assert main(["build-triplets", str(f), "--name", "Fr", "--out", str(tmp_path / "o"), "--k", "1"]) == 0
    info = json.loads((tmp_path / "o" / "Fr" / "mteb_contrastive.json").read_text())
    assert info["language"] == "fra-Latn" and info["languages"] == ["fra-Latn"]
    from mteb_contrastive.catalog import folder_task_classes as tasks_for_folder

    assert {tuple(v) for c in tasks_for_folder(tmp_path / "o" / "Fr") for v in c.metadata.eval_langs.values()} == {
        ("fra-Latn",)
    }


def test_build_triplets_without_language_anywhere_is_required(tmp_path, capsys):
    f = write_jsonl(tmp_path / "c.jsonl", corpus_rows(None))
    line = cli_exit(["build-triplets", str(f), "--name", "X", "--out", str(tmp_path / "o")], capsys)
    assert line == (
        f"mteb-contrastive: error: {f}: no row has a 'language' field; "
        "pass --language (ISO 639-1 of the texts, e.g. fr) or give each row a 'language'"
    )
    assert (
        main(["build-triplets", str(f), "--name", "X", "--out", str(tmp_path / "o"), "--language", "fr", "--k", "1"])
        == 0
    )
    assert json.loads((tmp_path / "o" / "X" / "mteb_contrastive.json").read_text())["language"] == "fra-Latn"


def test_row_with_unknown_or_missing_language_is_named(tmp_path, capsys):
    rows = corpus_rows("fr")
    rows[2]["language"] = "klingon"
    f = write_jsonl(tmp_path / "c.jsonl", rows)
    assert "c.jsonl, line 3, field 'language': unknown language code 'klingon'" in cli_exit(
        ["build-triplets", str(f), "--name", "X", "--out", str(tmp_path / "o")], capsys
    )
    del rows[2]["language"]
    write_jsonl(f, rows)
    assert "c.jsonl, line 3, field 'language': no language, while other rows have one (['fra-Latn'])" in cli_exit(
        ["build-triplets", str(f), "--name", "X", "--out", str(tmp_path / "o")], capsys
    )


# --- hand-made PAN folders ------------------------------------------------------------------------------


def pan_folder(folder: Path) -> Path:
    for split in ("validation", "test"):
        (folder / split).mkdir(parents=True)
        write_jsonl(folder / split / "pairs.jsonl", [{"id": "p1", "fandoms": ["a", "b"], "pair": ["x", "y"]}])
        write_jsonl(folder / split / "truth.jsonl", [{"id": "p1", "same": True, "authors": ["A", "A"]}])
    return folder


def test_hand_made_pan_folder_skip_message_names_the_missing_field(tmp_path, monkeypatch, caplog):
    from mteb_contrastive.catalog import verification_task_classes

    folder = pan_folder(tmp_path / "mine")
    monkeypatch.setenv("MTEB_CONTRASTIVE_VERIFICATION", str(folder))
    with caplog.at_level(logging.WARNING):
        assert verification_task_classes() == []
    assert [r.getMessage() for r in caplog.records] == [
        f"skipping verification folder {folder}: no mteb_contrastive.json; write one with "
        '{"kind": "pan-verification", '
        '"name": "<letters and digits, starting with a letter; the task is <name>Verification>", '
        '"languages": ["<mteb language-script code of the texts, e.g. eng-Latn>"]}'
    ]
    caplog.clear()
    (folder / "mteb_contrastive.json").write_text(json.dumps({"kind": "pan-verification", "name": "Mine"}))
    with caplog.at_level(logging.WARNING):
        assert verification_task_classes() == []
    assert [r.getMessage() for r in caplog.records] == [
        f"skipping verification folder {folder}: {folder / 'mteb_contrastive.json'}, field 'languages': missing; "
        'write "languages": ["<mteb language-script code of the texts, e.g. eng-Latn>"]'
    ]
    (folder / "mteb_contrastive.json").write_text(
        json.dumps({"kind": "pan-verification", "name": "Mine", "languages": ["spa-Latn"]})
    )
    (cls,) = verification_task_classes()
    assert cls.metadata.name == "MineVerification" and cls.metadata.eval_langs == ["spa-Latn"]
    assert cls.metadata.dataset["revision"].startswith("content-")


# --- per-model prediction files ---------------------------------------------------------------------------


def test_two_models_sharing_a_prediction_folder_get_their_own_files(tmp_path):
    import mteb
    from mteb.models.model_meta import ModelMeta

    task = mteb.get_task("HALvestRetrieval")

    class M:
        def __init__(self, name, rev):
            self.mteb_model_meta = ModelMeta.create_empty(overwrites=dict(name=name, revision=rev))

    task._save_task_predictions(
        {"q1": {"d1": 0.9}}, M("org/first", "r1"), tmp_path, hf_split="test", hf_subset="base-2"
    )
    task._save_task_predictions(
        {"q1": {"d1": 0.1}}, M("org/second", "r2"), tmp_path, hf_split="test", hf_subset="base-2"
    )
    a = json.loads((tmp_path / "org__first" / "r1" / "HALvestRetrieval_predictions.json").read_text())
    b = json.loads((tmp_path / "org__second" / "r2" / "HALvestRetrieval_predictions.json").read_text())
    assert a["mteb_model_meta"]["model_name"] == "org/first" and a["base-2"]["test"] == {"q1": {"d1": 0.9}}
    assert b["mteb_model_meta"]["model_name"] == "org/second" and b["base-2"]["test"] == {"q1": {"d1": 0.1}}
    assert not (tmp_path / "HALvestRetrieval_predictions.json").exists()
