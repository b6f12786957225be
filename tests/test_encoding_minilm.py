"""The encoding layer on the real bundled all-MiniLM-L6-v2, from Python and through the stock `mteb run`."""

from __future__ import annotations

import json
from collections import Counter

import mteb
import numpy as np
import pytest
from conftest import MINILM, bundled_minilm_path, run
from test_author_retrieval import make_task, row

from mteb_contrastive.encoding import EncodingModel, EncodingSettingsError, window_spans, window_starts

WORDS = "the cat sat on a mat and then it ran to the house of our old friend".split()  # one word piece each


@pytest.fixture(scope="module")
def long_model():
    return mteb.get_model(f"{MINILM}::max_seq_length=16,long_document=mean,cache=off")


def _encode(model, texts):
    task = make_task("triplet", [row("a", "b", "c")], "EncMiniLM")
    return model.encode([{"text": texts}], task_metadata=task.metadata, hf_split="test", hf_subset="default")


def test_options_reach_the_model_and_its_revision(long_model):
    assert isinstance(long_model, EncodingModel) and long_model.model.max_seq_length == 16
    meta = long_model.mteb_model_meta
    base = mteb.get_model_meta(MINILM).revision
    assert meta.revision == f"{base}+msl16-long" and meta.name == MINILM
    assert meta.experiment_kwargs == {"max_seq_length": 16, "long_document": "mean"}
    assert mteb.get_model_meta(f"{MINILM}::max_seq_length=16,long_document=mean").revision == meta.revision
    assert mteb.get_model_meta(f"{MINILM}::backend=onnx").revision == f"{base}+onnx"  # backend is identity


def test_long_document_mean_equals_the_mean_of_the_windows_encoded_as_texts(long_model):
    st = long_model.model
    words = (WORDS * 3)[:40]  # 40 tokens; window 14, stride 14
    assert len(st.tokenizer(" ".join(words), add_special_tokens=False)["input_ids"]) == 40
    emb = _encode(long_model, [" ".join(words), " ".join(words[:10])])
    starts = window_starts(40, 14, 14)
    assert starts == [0, 14, 28]
    # weighted by tokens: 14, 14 and 12
    expected = np.average(st.encode([" ".join(words[s : s + 14]) for s in starts]), axis=0, weights=[14, 14, 12])
    assert np.allclose(emb[0], expected, atol=1e-5)
    assert np.allclose(emb[1], st.encode(" ".join(words[:10])), atol=1e-5)  # fits: the model's own embedding
    s = long_model.encoding_scores("EncMiniLM", "test", "default")
    assert (s["encoding_tokens_max"], s["encoding_windows_mean"], s["encoding_over_limit_share"]) == (42, 2.0, 0.5)


def test_one_full_window_plus_one_token_stays_close_to_the_full_window(long_model):
    # issue 20: the unweighted mean of a 14-token window and a 1-token window had cosine 0.70 with the text itself
    words = (WORDS * 3)[:15]
    full, plus_one = _encode(long_model, [" ".join(words[:14]), " ".join(words)])
    cos = float(full @ plus_one / np.linalg.norm(full) / np.linalg.norm(plus_one))
    alone = long_model.model.encode(words[14])
    unweighted = (full + alone) / 2
    assert cos > 0.95 > float(full @ unweighted / np.linalg.norm(full) / np.linalg.norm(unweighted))


def test_windows_of_a_real_tokenizer_start_on_grapheme_boundaries(long_model):
    # MiniLM cuts Devanagari into word pieces क ##ि ##त ##ा: without the grapheme rule, windows 3 and 4
    # started on a vowel sign (token 28 "##ि", token 42 "##त" after "##स्" ...); its uncased tokenizer strips
    # NFD accents and reads Thai words as [UNK], so those scripts are checked in test_encoding_settings.py
    from mteb_contrastive.data.text import grapheme_starts

    text = "नमस्ते दुनिया किताब पढ़ता हूँ " * 3
    core = long_model.core
    enc = core.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    cuts = core.window_cuts([text])[0]
    spans = window_spans(len(enc["input_ids"]), long_model.window, long_model.stride, cuts)
    assert spans[0][0] == 0 and spans[-1][1] == len(enc["input_ids"])
    starts = set(grapheme_starts(text))
    plain = window_spans(len(enc["input_ids"]), long_model.window, long_model.stride)
    assert [enc["offset_mapping"][a][0] in starts for a, _ in plain] == [True, True, False, False]
    assert spans == [(0, 14), (14, 27), (27, 41), (41, 48)]
    for a, _ in spans[1:]:
        assert enc["offset_mapping"][a][0] in starts  # the window starts where a grapheme starts
    emb = _encode(long_model, [text])
    assert np.isfinite(emb).all() and emb.shape == (1, 384)


def test_max_seq_length_beyond_the_position_limit_is_refused():
    with pytest.raises(EncodingSettingsError, match="max_seq_length=1024: this model has 512 positions"):
        mteb.get_model(MINILM, max_seq_length=1024)


def test_local_folder_identity_is_its_content(tmp_path):
    import shutil

    from mteb_contrastive.encoding.wrapper import folder_identity

    copy = tmp_path / "copy"
    shutil.copytree(bundled_minilm_path(), copy)
    assert folder_identity(copy) == folder_identity(bundled_minilm_path())  # same files, another path
    (copy / "config.json").write_text((copy / "config.json").read_text() + "\n")
    assert folder_identity(copy) != folder_identity(bundled_minilm_path())


@pytest.fixture(scope="module")
def tiny_taln(tmp_path_factory):
    """TALN English abstracts of 12 author sets with >= 2 papers + 12 others (real text, read at run time)."""
    from pathlib import Path

    from mteb_contrastive.data.halvest_builder import build_halvest_dataset
    from mteb_contrastive.data.taln import taln_corpus

    shared = Path(__file__).resolve().parents[2] / "shared" / "data"
    docs, _ = taln_corpus(shared / "taln" / "articles.jsonl.gz", "abstract-en")
    sets = Counter(frozenset(d["authors"]) for d in docs)
    paired = [s for s, n in sets.items() if n >= 2][:12]
    keep = [d for d in docs if frozenset(d["authors"]) in paired] + [
        d for d in docs if sets[frozenset(d["authors"])] == 1
    ][:12]
    out = tmp_path_factory.mktemp("datasets")
    build_halvest_dataset(
        keep,
        out,
        "TALNTinyEnc",
        ks=(2,),
        language="en",
        mteb_language="eng-Latn",
        n_triplets=1,
        seed=0,
        source="TALN abstracts (test subset)",
    )
    return out


def test_mteb_run_with_options_encodes_once_and_a_second_run_encodes_nothing(tiny_taln, tmp_path):
    env = {"MTEB_CONTRASTIVE_DATASETS": str(tiny_taln), "MTEB_CONTRASTIVE_EMBEDDING_CACHE_DIR": str(tmp_path / "emb")}
    tasks = ["TALNTinyEncAuthorTripletClassification", "TALNTinyEncAuthorRetrieval"]
    scores = []
    for _ in range(2):
        r = run(
            [
                "mteb",
                "run",
                "-m",
                f"{MINILM}::max_seq_length=64",
                "-t",
                *tasks,
                "--output-folder",
                str(tmp_path / "res"),
                "--overwrite-strategy",
                "always",
                "-v",
                "1",
            ],
            env,
        )
        assert r.returncode == 0, r.stderr[-3000:]
        files = {
            p.stem: json.loads(p.read_text())["scores"]["test"][0]
            for p in (tmp_path / "res").rglob("TALNTinyEnc*.json")
        }
        scores.append([files[t] for t in tasks])
    (trip, ret), (trip2, ret2) = scores
    folder = next(
        (tmp_path / "res").rglob("TALNTinyEncAuthorRetrieval.json")
    ).parent  # <model>/<revision>/experiments/<exp>
    assert (folder.parent.parent.name, folder.name) == (
        mteb.get_model_meta(MINILM).revision + "+msl64",
        "max_seq_length_64",
    )
    assert trip["encoding_max_seq_length"] == 64 and 0 < trip["encoding_truncated_share"] <= 1
    assert trip["encoding_texts_encoded"] == trip["encoding_n_texts"] == trip["n_unique_texts"]
    assert ret["encoding_texts_encoded"] == 0 and ret["encoding_cache_hits"] == ret["encoding_n_texts"]  # same texts
    assert trip2["encoding_texts_encoded"] == 0 and ret2["encoding_texts_encoded"] == 0
    assert (trip2["accuracy"], ret2["ndcg_at_10"]) == (trip["accuracy"], ret["ndcg_at_10"])


def test_onnx_without_its_packages_is_one_clear_error(monkeypatch):
    import mteb_contrastive.encoding.loading as loading

    installed = loading._module_installed
    monkeypatch.setattr(
        loading,
        "_module_installed",
        lambda name: name not in ("onnxruntime", "optimum.onnxruntime") and installed(name),
    )
    assert loading.backend_available("torch") and not loading.backend_available("onnx")
    with pytest.raises(
        EncodingSettingsError,
        match=(
            r"backend=onnx: onnxruntime and optimum.onnxruntime are not installed "
            r"\(pip install 'sentence-transformers\[onnx\]'"
        ),
    ):
        mteb.get_model(f"{MINILM}::backend=onnx")


def test_backend_availability_needs_every_module_and_survives_a_missing_parent_package(monkeypatch):
    import mteb_contrastive.encoding.loading as loading

    assert loading._module_installed("numpy.linalg")
    assert not loading._module_installed(
        "no_such_package_mteb_contrastive.intel"
    )  # find_spec raises for the parent: False
    monkeypatch.setattr(loading, "_module_installed", lambda name: name == "openvino")  # openvino without optimum.intel
    assert not loading.backend_available("openvino")
    monkeypatch.setattr(loading, "_module_installed", lambda name: name in ("openvino", "optimum.intel"))
    assert loading.backend_available("openvino") and not loading.backend_available("onnx")


def test_int8_quantises_every_linear_layer_and_stays_close_to_fp32():
    import torch
    from torch.ao.nn.quantized.dynamic import Linear as DynamicQuantizedLinear

    model = mteb.get_model(f"{MINILM}::precision=int8", cache=False)
    linears = [m for m in model.model.modules() if isinstance(m, (torch.nn.Linear, DynamicQuantizedLinear))]
    assert len(linears) == 37 and all(
        isinstance(m, DynamicQuantizedLinear) for m in linears
    )  # 6 layers x (q, k, v, out, ffn in, ffn out) + BERT pooler
    assert model.mteb_model_meta.revision.endswith("+int8")
    texts = ["The cat sat on the mat.", "Stock markets fell sharply on Monday.", "A kitten rested on the rug."]
    emb8 = _encode(model, texts)
    emb32 = _encode(mteb.get_model(MINILM, cache=False), texts)
    assert emb8.dtype == np.float32 and emb8.shape == (3, 384)
    cos = np.sum(emb8 * emb32, 1) / (np.linalg.norm(emb8, axis=1) * np.linalg.norm(emb32, axis=1))
    assert 0.9 < cos.min() and cos.max() < 1 - 1e-4  # close to fp32, but really quantised
    sim = emb8 @ emb8.T
    assert sim[0, 2] > sim[0, 1]  # the paraphrase stays nearer than the unrelated text


def test_bf16_casts_the_weights_and_warns_on_a_cpu_without_bf16(monkeypatch):
    import torch

    import mteb_contrastive.encoding.loading as loading

    monkeypatch.setattr(loading, "cpu_has_bf16", lambda: False)
    with pytest.warns(UserWarning, match="this CPU has no bfloat16 instructions"):
        model = mteb.get_model(MINILM, precision="bf16", cache=False)
    assert next(model.model.parameters()).dtype == torch.bfloat16
    assert model.mteb_model_meta.revision.endswith("+bf16")
    emb = _encode(model, ["a short text"])
    assert emb.dtype == np.float32 and emb.shape == (1, 384)
