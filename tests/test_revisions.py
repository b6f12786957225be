"""A revision changes exactly when the content changes (issue 9, section 2), and stale temporaries go."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from mteb_contrastive.data.halvest_builder import build_halvest_dataset
from mteb_contrastive.data.ir_triplets import build_ir_triplets
from mteb_contrastive.data.verification_builder import build_verification_dataset

DOGS = "Dogs bark loudly. Birds sing at dawn. Fish swim in rivers."


def corpus(first_text: str) -> list[dict]:
    texts = [
        first_text,
        "Rain falls in spring. Snow melts in March. Wind blows at night.",
        "Paper is made of wood. Ink is made of soot. Pens are made of steel.",
        "Cars need fuel. Bikes need legs. Boats need wind.",
    ]
    authors = [["A"], ["A"], ["B"], ["B"]]
    return [
        {"id": f"d{i}", "authors": a, "text": t, "domains": [], "year": 2000, "language": "en"}
        for i, (a, t) in enumerate(zip(authors, texts))
    ]


def build_id(folder: Path) -> str:
    return json.loads((folder / "mteb_contrastive.json").read_text())["build_id"]


def test_halvest_build_id_follows_the_text_not_its_length(tmp_path, monkeypatch):
    a = build_id(build_halvest_dataset(corpus(DOGS), tmp_path / "1", "Toy", ks=(1,), n_triplets=1))
    same = build_id(build_halvest_dataset(corpus(DOGS), tmp_path / "2", "Toy", ks=(1,), n_triplets=1))
    cats = DOGS.replace("Dogs", "Cats")
    assert len(cats) == len(DOGS)
    b = build_id(build_halvest_dataset(corpus(cats), tmp_path / "3", "Toy", ks=(1,), n_triplets=1))
    assert a == same and a != b
    # the task mteb records (and checks its cache against) carries that revision
    from mteb_contrastive.catalog import folder_task_classes as tasks_for_folder

    revs = {cls.metadata.dataset["revision"] for cls in tasks_for_folder(tmp_path / "3" / "Toy")}
    assert revs == {b}


def test_verification_build_id_follows_the_text(tmp_path):
    def docs(word):
        return [
            {
                "id": f"w{i}",
                "author": f"a{i % 4}",
                "text": f"{word if i == 0 else 'Cats'} " + " ".join(f"w{i}x{j}" for j in range(40)),
            }
            for i in range(16)
        ]

    opts = dict(chunk_words=10, split_ratios=(0.0, 0.5, 0.5), pairs_per_author=2)
    a = build_id(build_verification_dataset(docs("Dogs"), tmp_path / "1", "V", **opts))
    assert a == build_id(build_verification_dataset(docs("Dogs"), tmp_path / "2", "V", **opts))
    assert a != build_id(build_verification_dataset(docs("Hogs"), tmp_path / "3", "V", **opts))


def test_ir_build_id_follows_the_text(tmp_path):
    qrels = {f"q{i}": {f"d{i}a": 1, f"d{i}b": 1} for i in range(10)}

    def corpus_(w):
        c = {d: f"text of {d}" for q in qrels.values() for d in q}
        c["d0a"] = f"{w} bark loudly."
        return c

    a = build_id(build_ir_triplets(corpus_("Dogs"), qrels, tmp_path / "1", "Ir"))
    assert a == build_id(build_ir_triplets(corpus_("Dogs"), qrels, tmp_path / "2", "Ir"))
    assert a != build_id(build_ir_triplets(corpus_("Cats"), qrels, tmp_path / "3", "Ir"))


def fake_model(folder: Path, weight: bytes = b"\x00\x01") -> Path:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text('{"hidden_size": 4}')
    (folder / "modules.json").write_text("[]")
    (folder / "model.safetensors").write_bytes(weight)
    (folder / "1_Pooling").mkdir()
    (folder / "1_Pooling" / "config.json").write_text('{"pooling_mode_mean_tokens": true}')
    return folder


def test_local_model_revision_is_the_weights_and_configs(tmp_path):
    from mteb_contrastive.models.local import local_model_meta

    m1 = fake_model(tmp_path / "a" / "mymodel")
    m2 = fake_model(tmp_path / "b" / "mymodel")  # same files elsewhere
    meta1, meta2 = local_model_meta(m1), local_model_meta(m2)
    assert meta1.name == "local/mymodel" and meta1.revision.startswith("local-")
    assert meta1.revision == meta2.revision
    (m2 / "README.md").write_text("notes")
    assert local_model_meta(m2).revision == meta1.revision
    (m2 / "model.safetensors").write_bytes(b"\x00\x02")
    assert local_model_meta(m2).revision != meta1.revision
    (m1 / "1_Pooling" / "config.json").write_text('{"pooling_mode_cls_token": true}')
    assert local_model_meta(m1).revision not in (meta1.revision, local_model_meta(m2).revision)


def test_rerank_revision_names_the_reranker_folder_by_content(tmp_path):
    from mteb_contrastive.search.rerank import two_stage_meta

    m1 = fake_model(tmp_path / "a" / "ce")
    m2 = fake_model(tmp_path / "b" / "ce")
    r1 = two_stage_meta("rerank/x", "bm25", None, 10, reranker_kind="ce", reranker_model=str(m1)).revision
    r2 = two_stage_meta("rerank/x", "bm25", None, 10, reranker_kind="ce", reranker_model=str(m2)).revision
    assert r1.startswith("ce-") and r1.endswith("-k10")
    assert r1.split("-")[-2] == r2.split("-")[-2]  # same content, same fingerprint
    (m2 / "model.safetensors").write_bytes(b"changed")
    r3 = two_stage_meta("rerank/x", "bm25", None, 10, reranker_kind="ce", reranker_model=str(m2)).revision
    assert r3.split("-")[-2] != r1.split("-")[-2]


def test_baseline_revisions_are_fingerprints_of_parameters_and_code():
    import mteb

    from mteb_contrastive.baselines import BASELINES, baseline_revision

    revs = {name: baseline_revision(name) for name in BASELINES}
    assert len(set(revs.values())) == len(revs)  # words / bigrams / char3 differ by their parameters
    assert mteb.get_model_meta("mteb-contrastive/tfidf-char3").revision == revs["mteb-contrastive/tfidf-char3"]
    assert baseline_revision("mteb-contrastive/tfidf-char3") == revs["mteb-contrastive/tfidf-char3"]


def pan_folder(folder: Path, same: bool = True) -> Path:
    for split in ("validation", "test"):
        (folder / split).mkdir(parents=True)
        (folder / split / "pairs.jsonl").write_text(
            json.dumps({"id": "p1", "fandoms": ["a", "b"], "pair": ["x y", "y z"]}) + "\n"
        )
        (folder / split / "truth.jsonl").write_text(
            json.dumps({"id": "p1", "same": same, "authors": ["A", "A" if same else "B"]}) + "\n"
        )
    return folder


def test_pan_folder_revision_is_its_content(tmp_path):
    from mteb_contrastive.tasks.pan import PAN21Verification

    r1 = PAN21Verification(folder=pan_folder(tmp_path / "a")).metadata.revision
    assert r1.startswith("content-") and r1 != "local"
    assert PAN21Verification(folder=pan_folder(tmp_path / "b")).metadata.revision == r1
    assert PAN21Verification(folder=pan_folder(tmp_path / "c", same=False)).metadata.revision != r1
    assert PAN21Verification.metadata.revision == "local"  # the class without a folder


def test_halvest_local_copy_revision_is_its_content(tmp_path, monkeypatch):
    import mteb

    (tmp_path / "base-2").mkdir()
    (tmp_path / "base-2" / "test.parquet").write_bytes(b"one")
    monkeypatch.setenv("MTEB_CONTRASTIVE_HALVEST_PATH", str(tmp_path))
    r1 = mteb.get_task("HALvestRetrieval").metadata.revision
    assert r1.startswith("content-")
    (tmp_path / "base-2" / "test.parquet").write_bytes(b"two")
    r2 = mteb.get_task("HALvestTripletClassification").metadata.revision
    assert r2.startswith("content-") and r2 != r1
    monkeypatch.delenv("MTEB_CONTRASTIVE_HALVEST_PATH")
    from mteb_contrastive.data.halvest import PAIRS_REVISION

    assert not mteb.get_task("HALvestRetrieval").metadata.revision.startswith("content-")  # the Hub again
    assert mteb.get_task("HALvestPairClassification").metadata.revision == PAIRS_REVISION


def test_cranfield_revision_follows_the_source_files(tmp_path, monkeypatch):
    from mteb_contrastive.tasks.paragraph_vector import CranfieldIRTriplets

    src = tmp_path / "cran"
    (src / "qrels").mkdir(parents=True)
    (src / "corpus.jsonl").write_text(json.dumps({"_id": "1", "text": "Dogs bark loudly."}) + "\n")
    (src / "queries.jsonl").write_text(json.dumps({"_id": "q", "text": "q"}) + "\n")
    (src / "qrels" / "test.tsv").write_text("q\t1\t1\n")
    monkeypatch.setenv("MTEB_CONTRASTIVE_CRANFIELD", str(src))
    r1 = CranfieldIRTriplets().metadata.revision
    assert r1.startswith("builder-2-") and r1 == CranfieldIRTriplets().metadata.revision
    (src / "corpus.jsonl").write_text(json.dumps({"_id": "1", "text": "Cats bark loudly."}) + "\n")
    assert CranfieldIRTriplets().metadata.revision != r1


def test_stale_build_temporaries_are_removed_on_the_next_build(tmp_path):
    dead = tmp_path / ".Toy.999999999.abc123.tmp"  # a killed build (no such pid)
    old_form = tmp_path / ".Toy.k2j3h4.tmp"  # left by a build before pids were recorded
    live = tmp_path / f".Toy.{os.getppid()}.zz.tmp"  # a live process's build: kept
    other = tmp_path / ".Other.999999999.x.tmp"  # another dataset's: not ours to touch
    for p in (dead, old_form, live, other):
        p.mkdir()
        (p / "part.parquet").write_text("half")
    build_halvest_dataset(corpus(DOGS), tmp_path, "Toy", ks=(1,), n_triplets=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([".Other.999999999.x.tmp", live.name, "Toy"])
    shutil.rmtree(live)


def test_quoter_revision_follows_the_file(tmp_path, monkeypatch):
    import mteb

    f = tmp_path / "en_gcide.txt"
    f.write_text("".join(f"left {i}\tDogs bark loudly {i}.\tright\n" for i in range(20)), encoding="utf-8")
    monkeypatch.setenv("MTEB_CONTRASTIVE_QUOTER_DATA", str(tmp_path))
    r1 = mteb.get_task("QuoteRGcideEnglishRetrieval").metadata.revision
    assert (
        r1.startswith("shuffle-20240611-80-10-10-")
        and r1 == mteb.get_task("QuoteRGcideEnglishRetrieval").metadata.revision
    )
    f.write_text(f.read_text(encoding="utf-8").replace("Dogs", "Cats"), encoding="utf-8")
    assert mteb.get_task("QuoteRGcideEnglishRetrieval").metadata.revision != r1


def test_mteb_does_not_return_the_stale_result_after_an_edit(tmp_path):
    """Build, evaluate, edit one word, rebuild, evaluate again through mteb's result cache."""
    import mteb
    from conftest import TableEncoder
    from mteb.cache import ResultCache

    from mteb_contrastive.catalog import folder_task_classes as tasks_for_folder

    cache = ResultCache(tmp_path / "cache")
    model = TableEncoder()

    def evaluate(text):
        folder = build_halvest_dataset(corpus(text), tmp_path / "ds", "Edit", ks=(1,), n_triplets=1)
        task = [c for c in tasks_for_folder(folder) if c.metadata.name.endswith("TripletClassification")][0]()
        res = mteb.evaluate(model, task, cache=cache, overwrite_strategy="only-missing", show_progress_bar=False)
        return res.task_results[0], build_id(folder)

    first, id1 = evaluate(DOGS)
    again, _ = evaluate(DOGS)
    assert again.dataset_revision == first.dataset_revision == id1  # unchanged content: the cached result
    edited, id2 = evaluate(DOGS.replace("Dogs", "Cats"))
    assert id2 != id1 and edited.dataset_revision == id2


def test_stale_file_temporaries_are_removed_on_the_next_write(tmp_path):
    from mteb_contrastive.data.atomic import write_text_atomic

    (tmp_path / ".answers.jsonl.999999999.k3j2.tmp").write_text("half")
    write_text_atomic(tmp_path / "answers.jsonl", "whole\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["answers.jsonl"]
    assert (tmp_path / "answers.jsonl").read_text() == "whole\n"
