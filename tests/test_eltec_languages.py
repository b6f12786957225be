"""Five ELTeC languages: ids and scripts, edition normalisation, recipes and the full-suite plan."""

from __future__ import annotations

import gzip
import json

import pytest

from mteb_contrastive.data.languages import document_language, eltec_language, text_script
from mteb_contrastive.data.normalise import normalise_documents, normalise_text, serbian_latin_to_cyrillic
from mteb_contrastive.data.verification_builder import build_verification_dataset, eltec_documents


def test_eltec_ids_of_every_collection():
    assert eltec_language("HU03130") == "hun"  # the Hungarian collection's two-letter prefix
    assert eltec_language("SRP18590_JakovI_DjuradjB") == "srp"
    assert eltec_language("ENG18400_Trollope") == "eng" and eltec_language("DEU001") == "deu"
    assert eltec_language("SPA2019_JuanValera_X") == "spa" and eltec_language("ROM123") == "ron"
    assert eltec_language("novel-1") is None


def test_script_per_document():
    assert text_script("Pre srca, sve je bilo tiho.") == "Latn" and text_script("Пре срца, све је било тихо.") == "Cyrl"
    assert text_script("北京大学的学生") is None and text_script("1914 ...") is None
    assert document_language("srp", "Pre srca") == "srp-Latn" and document_language("srp", "Пре срца") == "srp-Cyrl"
    assert document_language("hun", "Az egri csillagok") == "hun-Latn"
    assert document_language("cmn", "北京大学的学生") == "cmn-Hans"  # no majority of Latin/Cyrillic/Greek: default
    assert document_language(None, "text") is None


def _cut(shared, lang: str, ids: set[str], tmp_path):
    """The rows ``ids`` of one shared ELTeC file, copied at run time into a small file."""
    out = tmp_path / f"{lang}.jsonl.gz"
    with gzip.open(shared / "eltec" / f"{lang}_novels.jsonl.gz", "rt", encoding="utf-8") as fin:
        rows = [r for r in map(json.loads, fin) if r["id"] in ids]
    with gzip.open(out, "wt", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return out


def test_eltec_serbian_latin_novels_and_hungarian_ids(shared, tmp_path):
    srp = _cut(
        shared,
        "srp",
        {"SRP19180_MilicaJ_PreSrece", "SRP19192_SvetozarC_Ucelijama", "SRP18590_JakovI_DjuradjB"},
        tmp_path,
    )
    docs = {d["id"]: d["language"] for d in eltec_documents(srp)}
    assert docs["SRP19180_MilicaJ_PreSrece"] == docs["SRP19192_SvetozarC_Ucelijama"] == "srp-Latn"
    assert len(docs) == 3 and sorted(set(docs.values())) == ["srp-Cyrl", "srp-Latn"]
    normalised = normalise_documents(eltec_documents(srp), "edition")
    assert {d["language"] for d in normalised} == {"srp-Cyrl"}  # transliterated to Cyrillic
    hun = _cut(shared, "hun", {"HU03130"}, tmp_path)
    assert [d["language"] for d in eltec_documents(hun)] == ["hun-Latn"]  # was eng-Latn: HU ids were not read


def test_edition_normalisation():
    assert serbian_latin_to_cyrillic("Ljubav i džep, Đorđe NJEGOŠ, čaša ćup") == "Љубав и џеп, Ђорђе ЊЕГОШ, чаша ћуп"
    assert normalise_text("köny\u00adnyebb \u2014Igen \u2013 mondta", "edition", "hun") == "könynyebb -Igen - mondta"
    assert normalise_text("Pre srca", "edition", "srp-Latn") == "Пре срца"
    assert normalise_text("Pre srca", "edition", "hrv") == "Pre srca"  # only Serbian is transliterated
    with pytest.raises(ValueError, match="--normalise 'nfc'"):
        normalise_text("x", "nfc")


def _vdocs():
    return [
        {
            "id": f"d{a}{i}",
            "author": a,
            "text": (
                " ".join(f"Author {a} writes sentence {j} of work {i} about topic {(i + j) % 3}." for j in range(12))
                + " "
            )
            * 20,
            "language": "eng",
        }
        for a in "ABCD"
        for i in range(3)
    ]


def test_verification_normalise_hook_only_in_params_when_used(tmp_path):
    opts = dict(chunk_words=50, pairs_per_author=3, split_ratios=(0, 0.5, 0.5), seed=0)
    plain = build_verification_dataset(_vdocs(), tmp_path, "PinV", **opts)
    info = json.loads((plain / "mteb_contrastive.json").read_text())
    assert "normalise" not in info["params"]
    assert info["build_id"] == "aae2556a91c3712a"  # the same corpus built at 5d3590d, before the hook
    dashed = [{**d, "text": d["text"].replace("writes", "wri\u00adtes \u2014")} for d in _vdocs()]
    norm = build_verification_dataset(dashed, tmp_path, "NormV", normalise="edition", **opts)
    info_n = json.loads((norm / "mteb_contrastive.json").read_text())
    assert info_n["params"]["normalise"] == "edition" and info_n["build_id"] != info["build_id"]
    text = (norm / "test" / "pairs.jsonl").read_text(encoding="utf-8")
    assert "\u00ad" not in text and "\u2014" not in text and "writes -" in text


def test_recipes_and_full_plan(tmp_path, shared):
    from mteb_contrastive.benchmarks.plan import plan
    from mteb_contrastive.benchmarks.shared_data import ATTRIBUTION_RECIPES, VERIFICATION_RECIPES

    eltec = {n for n in VERIFICATION_RECIPES if n.startswith("ELTeC")}
    assert eltec == {"ELTeCEng", "ELTeCDeu", "ELTeCSpa", "ELTeCHun", "ELTeCSrp"} == set(ATTRIBUTION_RECIPES)
    assert VERIFICATION_RECIPES["ELTeCSrp"][2]["languages"] == ("srp-Cyrl", "srp-Latn")
    benches = {b.name: b for b in plan(tmp_path, shared, "full")}
    for name in eltec | {"PAN14Known"}:
        assert benches[name].missing is None and benches[name].tasks == [f"{name}Verification"]
    for name in eltec:
        b = benches[f"{name}Attribution"]
        assert b.family == "attribution" and b.missing is None and b.build is not None
        assert b.tasks == [f"{name}Attribution", f"{name}AuthorClustering"]
    assert benches["ELTeCHun"].build is not None and benches["PAN14Known"].default


def test_languages_table_flags_a_character_baseline_that_beats_every_model():
    from mteb_contrastive.report.content import language_rows, render_languages
    from mteb_contrastive.report.reader import ScoreRow

    def row(model, task, lang, main, auc):
        name = "pan_platt_abstain_overall"
        return ScoreRow(model, "r", task, "test", "default", "verification", name, {name: main, "auc": auc}, [lang])

    rows = [
        row("sentence-transformers/all-MiniLM-L6-v2", "ELTeCHunVerification", "hun-Latn", 0.60, 0.65),
        row("mteb-contrastive/tfidf-char3", "ELTeCHunVerification", "hun-Latn", 0.80, 0.90),
        row("mteb-contrastive/burrows-delta", "ELTeCHunVerification", "hun-Latn", 0.85, 0.92),  # not character-level
        row("sentence-transformers/all-MiniLM-L6-v2", "ELTeCHunEditionVerification", "hun-Latn", 0.70, 0.75),
        row("mteb-contrastive/ppmd-cbc", "ELTeCHunEditionVerification", "hun-Latn", 0.65, 0.70),
        row("sentence-transformers/all-MiniLM-L6-v2", "ELTeCSrpVerification", "srp-Cyrl", 0.70, 0.75),
        row("mteb-contrastive/ppmd-cbc", "ELTeCSrpVerification", "srp-Cyrl", 0.70, 0.80),  # a tie is no win
        row("sentence-transformers/all-MiniLM-L6-v2", "PAN14KnownVerification", "eng-Latn", 0.9, 0.9),  # not ELTeC
    ]
    minilm, char3 = "sentence-transformers/all-MiniLM-L6-v2", "mteb-contrastive/tfidf-char3"

    def beats(task, split, subset, winner, loser):  # the paired comparisons: only Hun's interval excludes 0
        return (task, winner, loser) == ("ELTeCHunVerification", char3, minilm)

    # flags on intervals: a higher point estimate within noise is no flag, nor anything without comparisons
    assert language_rows(rows)["flags"] == {}
    assert language_rows(rows, lambda *a: False)["flags"] == {}
    table = language_rows(rows, beats)
    assert table["languages"] == ["hun", "hun (Edition)", "srp"]
    assert table["flags"] == {("hun", "verification"): "mteb-contrastive/tfidf-char3"}
    assert table["models"][0] == "sentence-transformers/all-MiniLM-L6-v2"  # models before baselines
    text = "\n".join(render_languages(table))
    assert "| mteb-contrastive/tfidf-char3 | 0.900 / 0.800 (!) |" in text
    assert "(!) hun verification: the character-level baseline mteb-contrastive/tfidf-char3 beats every model" in text


def test_report_languages_table_flags_from_the_paired_comparisons(tmp_path, capsys):
    """`report --languages-table` decides its flags from the release report's own paired comparisons
    (it never flagged before: it had none). The fixture's ELTeC verification: the character-level
    baseline ppmd-cbc made perfect (similarity 0.9 / 0.1 by label), every pair its own authors (40
    swap blocks); without predictions no flag can be raised, and the table says why."""
    import json

    from report_fixture import build_results

    from mteb_contrastive.cli.main import main

    results = build_results(tmp_path)
    preds = tmp_path / "predictions"
    for folder in ("test__model-a", "mteb-contrastive__ppmd-cbc"):
        f = next((preds / folder).rglob("ELTeCEngVerification_predictions.json"))
        d = json.loads(f.read_text())
        t = d["default"]["test"]
        t["authors"] = [[f"s{i}"] if y else [f"d{i}", f"e{i}"] for i, y in enumerate(t["labels"])]
        if folder.startswith("mteb-contrastive"):
            t["similarity"] = [0.9 if y else 0.1 for y in t["labels"]]
            t["platt"] = t["platt_abstain"] = [1.0 if y else 0.0 for y in t["labels"]]
        f.write_text(json.dumps(d))
    args = ["report", str(results), "--languages-table"]
    with_preds = [
        "--predictions",
        f"test/model-a={preds / 'test__model-a'}",
        "--predictions",
        f"mteb-contrastive/ppmd-cbc={preds / 'mteb-contrastive__ppmd-cbc'}",
    ]
    assert main(args + with_preds) == 0
    out = capsys.readouterr().out
    assert "No flag can be raised" not in out
    assert "| mteb-contrastive/ppmd-cbc | 0.502 / 0.610 (!) |" in out
    assert "(!) eng verification: the character-level baseline mteb-contrastive/ppmd-cbc beats every model" in out
    assert "eng attribution" in out and out.count("(!)") == 2  # the cell and its note; attribution within noise
    # the run record names the prediction folders: found without --predictions too; moved away, none is found
    assert main(args) == 0 and capsys.readouterr().out == out
    (tmp_path / "run_info.json").unlink()
    for p in (results.parent / "predictions").iterdir():
        p.rename(tmp_path / ("moved-" + p.name))
    assert main(args) == 0
    plain = capsys.readouterr().out
    assert "(!)" not in plain and "No flag can be raised without per-item predictions" in plain
