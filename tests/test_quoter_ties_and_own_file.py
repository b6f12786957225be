"""QuoteR: tie-aware results through mteb, character BM25 for classical Chinese, your own file as a task.

The classical Chinese lines are synthetic (written for this test); the quotes share no character.
"""

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import mteb
import pytest

from mteb_contrastive.catalog import folder_task_classes
from mteb_contrastive.data.errors import DataError
from mteb_contrastive.data.quoter import build_quoter_folder
from mteb_contrastive.data.tokenize import tokenize
from mteb_contrastive.metrics.ranking import tie_aware_metrics

QUOTES = ["學而時習", "溫故知新", "見賢思齊", "過則勿憚", "歲寒松柏"]  # 20 distinct characters
LINES = [
    "子曰\t學而時習\t之",
    "子曰\t溫故知新\t可以為師矣",
    "子曰\t見賢思齊\t焉",
    "子曰\t過則勿憚\t改",
    "子曰\t歲寒松柏\t後凋也",
    "吾日三省吾身\t學而時習\t乎",
    # test (line order, boundaries 5 6 -> train 0..4, valid 5, test 6..9)
    "時習者\t學而時習\t也",  # shares 時, 習 with its gold only
    "故舊不遺\t溫故知新\t也",  # shares 故 with its gold only
    "見善\t見賢思齊\t矣",  # shares 見 with its gold only
    "君子不器\t過則勿憚\t改",  # shares no character with any quote: all five tie at 0
]
H5 = 1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5


def _folder(tmp_path, **kw):
    f = tmp_path / "lunyu.txt"
    f.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    opts = dict(split="line-order", boundaries=(5, 6))
    opts.update(kw)
    return build_quoter_folder(f, tmp_path / "built", "Lunyu", "lzh-Hant", **opts)


def _scores(model_name, task):
    res = mteb.evaluate(mteb.get_model(model_name), task, cache=None, overwrite_strategy="always")
    return res.task_results[0].scores["test"][0]


def test_character_tokens_for_chinese_words_otherwise():
    assert tokenize("時習者，[MASK]也", "lzh-Hant") == ["時", "習", "者", "m", "a", "s", "k", "也"]
    assert tokenize("學而時習", "cmn") == tokenize("學而時習", "zho-Hans") == ["學", "而", "時", "習"]
    assert tokenize("Weep: To shed, or pour forth", "eng-Latn") == ["weep", "to", "shed", "or", "pour", "forth"]


def test_constant_scorer_and_character_bm25_on_classical_chinese(tmp_path):
    task = folder_task_classes(_folder(tmp_path))[0]()
    # mteb's BM25 has no tokenizer for lzh: each quote is one token, no query shares one -> every gold scores 0
    s = _scores("mteb/baseline-bm25s", task)
    assert s["n_queries"] == 4 and s["pool_size"] == 5
    assert s["n_gold_tied_at_zero"] == 4 and s["n_gold_tied"] == 4 and s["max_gold_tie"] == 5
    assert s["main_score"] == s["mrr_tie_expected"] == pytest.approx(H5 / 5)  # 0.45667
    assert s["mrr_optimistic"] == 1.0 and s["mrr_pessimistic"] == pytest.approx(0.2)
    assert s["recall_at_1_tie_expected"] == pytest.approx(0.2) and s["median_rank_tie_expected"] == 3.0
    assert "mrr" not in s  # no unqualified product key with one tie rule
    # mteb's keys hold mteb's own values (its own order within the tie), not our optimistic 1.0 as before
    assert s["ndcg_at_5"] != s["ndcg_at_5_optimistic"] and s["recall_at_1"] != s["recall_at_1_optimistic"]
    ours = set(tie_aware_metrics([0], [1])) | {"n_gold_tied_at_zero", "gold_ranks_exact", "gold_ranks_lower_bound"}
    assert not [k for k in ours if re.fullmatch(r"(ndcg|map|recall|precision|mrr|hit_rate)_at_\d+|nauc_.*|accuracy", k)]
    # character BM25: three golds share characters with their query only -> rank 1; the fourth ties at 0 with all 5
    c = _scores("mteb-contrastive/bm25s-lang", task)
    assert c["n_gold_tied_at_zero"] == 1 and c["n_gold_tied"] == 1
    assert c["mrr_tie_expected"] == pytest.approx((3 + H5 / 5) / 4)
    assert c["mrr_optimistic"] == 1.0 and c["mrr_pessimistic"] == pytest.approx((3 + 0.2) / 4)
    assert c["ndcg_at_5_tie_expected"] == pytest.approx((3 + sum(1 / math.log2(r + 1) for r in range(1, 6)) / 5) / 4)
    assert c["recall_at_1_tie_expected"] == pytest.approx((3 + 0.2) / 4)
    assert c["median_rank_tie_expected"] == 1.0 and c["mean_rank_tie_expected"] == pytest.approx((3 + 3) / 4)
    # the rule of the task is recorded beside the scores
    assert (
        c["quoter_language"],
        c["quoter_split"],
        c["quoter_train_end"],
        c["quoter_valid_end"],
        c["quoter_shuffle_seed"],
    ) == ("lzh", "line-order", 5, 6, -1)


def test_built_folder_records_the_rule_and_its_identity(tmp_path):
    folder = _folder(tmp_path)
    info = json.loads((folder / "mteb_contrastive.json").read_text())
    assert (info["kind"], info["name"], info["language"], info["split"], info["boundaries"]) == (
        "quoter",
        "Lunyu",
        "lzh-Hant",
        "line-order",
        [5, 6],
    )
    assert (info["n_train"], info["n_valid"], info["n_test"]) == (5, 1, 4)
    (cls,) = folder_task_classes(folder)
    assert cls.metadata.name == "LunyuQuoteRRetrieval" and cls.metadata.eval_langs == ["lzh-Hant"]
    assert cls.metadata.dataset["revision"] == info["build_id"]
    # same file and rule -> same identity; another rule or one changed byte -> another
    again = json.loads(
        (
            build_quoter_folder(
                tmp_path / "lunyu.txt", tmp_path / "b2", "Lunyu", "lzh-Hant", split="line-order", boundaries=(5, 6)
            )
            / "mteb_contrastive.json"
        ).read_text()
    )
    assert again["build_id"] == info["build_id"]
    shuffled = json.loads((_folder(tmp_path, split="shuffled", boundaries=None) / "mteb_contrastive.json").read_text())
    assert (
        shuffled["build_id"] != info["build_id"] and shuffled["seed"] == 20240611 and shuffled["n_test"] == 1
    )  # int(0.9 * 10) = 9
    (tmp_path / "lunyu.txt").write_text("\n".join(LINES[:-1] + ["君子不器\t過則勿憚\t改。"]) + "\n", encoding="utf-8")
    changed = json.loads(
        (
            build_quoter_folder(
                tmp_path / "lunyu.txt", tmp_path / "b3", "Lunyu", "lzh-Hant", split="line-order", boundaries=(5, 6)
            )
            / "mteb_contrastive.json"
        ).read_text()
    )
    assert changed["build_id"] != info["build_id"]


def test_build_rejects_bad_input(tmp_path):
    f = tmp_path / "bad.txt"
    f.write_text("a\tb\tc\nonly\tone tab\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"bad.txt.*line 2"):
        build_quoter_folder(f, tmp_path / "o", "Bad", "eng-Latn")
    good = tmp_path / "good.txt"
    good.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="language tag"):
        build_quoter_folder(good, tmp_path / "o", "Good", "lzh")
    with pytest.raises(ValueError, match="--boundaries needs --split line-order"):
        build_quoter_folder(good, tmp_path / "o", "Good", "lzh-Hant", boundaries=(5, 6))
    with pytest.raises(DataError, match="past the end"):
        build_quoter_folder(good, tmp_path / "o", "Good", "lzh-Hant", split="line-order", boundaries=(5, 80))
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())  # nothing half-written


def _cli(*args, env=None):
    exe = Path(sys.executable).with_name(args[0])
    return subprocess.run([str(exe), *args[1:]], capture_output=True, text=True, timeout=300, env=env)


def test_own_file_through_the_build_command_and_mteb_run(tmp_path):
    f = tmp_path / "lunyu.txt"
    f.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    from mteb_contrastive.cli.main import main

    assert (
        main(
            [
                "build-quoter",
                str(f),
                "--name",
                "Lunyu",
                "--language",
                "lzh-Hant",
                "--split",
                "line-order",
                "--boundaries",
                "5",
                "6",
                "--out",
                str(tmp_path / "ds"),
            ]
        )
        == 0
    )
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    env["MTEB_CONTRASTIVE_DATASETS"] = str(tmp_path / "ds")
    p = _cli(
        "mteb",
        "run",
        "-m",
        "mteb-contrastive/bm25s-lang",
        "-t",
        "LunyuQuoteRRetrieval",
        "--output-folder",
        str(tmp_path / "res"),
        "-v",
        "1",
        env=env,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    (out,) = list((tmp_path / "res").rglob("LunyuQuoteRRetrieval.json"))
    d = json.loads(out.read_text())
    s = d["scores"]["test"][0]
    assert d["task_name"] == "LunyuQuoteRRetrieval"
    assert (
        d["dataset_revision"]
        == json.loads((tmp_path / "ds" / "Lunyu" / "mteb_contrastive.json").read_text())["build_id"]
    )
    assert s["main_score"] == pytest.approx((3 + H5 / 5) / 4)
    assert (s["quoter_language"], s["quoter_split"], s["quoter_train_end"], s["quoter_valid_end"]) == (
        "lzh",
        "line-order",
        5,
        6,
    )


@pytest.mark.parametrize(
    ("content", "args", "needle"),
    [
        (None, [], "not found"),
        ("a\tb\tc\nonly one field\n", [], "line 2: expected 3 tab-separated fields"),
        ("\n".join(LINES) + "\n", ["--split", "line-order", "--boundaries", "5", "99"], "past the end of the file"),
        (
            "\n".join(LINES) + "\n",
            ["--proportions", "0.9", "0.8"],
            "argument --proportions: 0.9 0.8 are not in increasing order",
        ),
    ],
)
def test_build_command_bad_input_is_one_line_exit_2(tmp_path, capsys, content, args, needle):
    from mteb_contrastive.cli.main import main

    f = tmp_path / "in.txt"
    if content is not None:
        f.write_text(content, encoding="utf-8")
    try:
        rc = main(
            ["build-quoter", str(f), "--name", "X", "--language", "eng-Latn", "--out", str(tmp_path / "o"), *args]
        )
    except SystemExit as exc:
        rc = exc.code
    err = capsys.readouterr().err.strip()
    assert rc == 2 and needle in err and "\n" not in err and "Traceback" not in err
    if not needle.startswith(("--", "argument --")):  # a data error names the file; an option error the option
        assert "in.txt" in err
    assert not (tmp_path / "o" / "X").exists()


def test_per_item_file_holds_each_querys_expected_reciprocal_rank():
    """By hand: query a has nothing above its gold and one tie (h=0, t=2): E[1/rank] = (1 + 1/2)/2 =
    0.75; query b has two candidates above and no tie (h=2, t=1): 1/3. The mean is mrr_tie_expected."""
    import numpy as np

    from mteb_contrastive.protocols.quote_retrieval import AbsTaskQuoteRetrieval

    h, t = np.array([0, 2]), np.array([2, 1])
    p = AbsTaskQuoteRetrieval.per_item(["a", "b"], h, t)
    assert p["name"] == "mrr_tie_expected" and p["ids"] == ["a", "b"]
    assert p["values"] == pytest.approx([0.75, 1 / 3])
    assert sum(p["values"]) / 2 == pytest.approx(tie_aware_metrics(h, t)["mrr_tie_expected"])


def test_a_build_quoter_folder_is_planned_and_run_as_a_quote_task(tmp_path):
    """Issue 17: a build-quoter folder in MTEB_CONTRASTIVE_DATASETS (as docs/quoter.md says) runs through
    `evaluate` as a quote task; the plan is made from the catalog (it was planned as an author
    benchmark and stopped with a KeyError)."""
    from conftest import run

    folder = _folder(tmp_path)  # tmp/built/Lunyu
    env = {
        "MTEB_CONTRASTIVE_DATASETS": str(folder.parent),
        "MTEB_CONTRASTIVE_SHARED": str(tmp_path / "no-shared-data"),
        "MTEB_CONTRASTIVE_CACHE": str(tmp_path / "cache"),
    }
    out = tmp_path / "release"
    r = run(["mteb-contrastive", "evaluate", "-m", "mteb-contrastive/bm25s-lang", "--out", str(out)], env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    lines = r.stdout.splitlines()
    assert (
        f"  run  Lunyu (quotes; user folder {folder.resolve()} ($MTEB_CONTRASTIVE_DATASETS)): LunyuQuoteRRetrieval"
        in lines
    )
    assert "Traceback" not in r.stderr
    (f,) = (out / "results").rglob("LunyuQuoteRRetrieval.json")
    scores = json.loads(f.read_text(encoding="utf-8"))["scores"]["test"][0]
    # character BM25 on the four test lines: ranks 1, 1, 1 and the all-tie line's expected RR H5/5 (see above)
    assert scores["main_score"] == pytest.approx((3 + H5 / 5) / 4)
    rep = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert [(x["task"], x["family"]) for x in rep["rows"]] == [("LunyuQuoteRRetrieval", "quotes")]
