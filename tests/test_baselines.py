"""Classic baselines as mteb models: hand-checkable scores, determinism, bad input, stock ``mteb run``."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mteb_contrastive.baselines import BASELINES, registered_model_metas
from mteb_contrastive.baselines.base import NotFittedError
from mteb_contrastive.baselines.gensim_models import Doc2VecBaseline, Word2VecAverage
from mteb_contrastive.baselines.sparse import BM25TripletBaseline, TfidfBaseline

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"

PASSAGES = [
    "the wing lift increases in the propeller slipstream",
    "propeller slipstream effects on wing lift were measured",
    "heat transfer in hypersonic boundary layers",
    "boundary layer heat transfer at hypersonic speed",
    "buckling of thin cylindrical shells under pressure",
    "thin shells buckle under external pressure loads",
] * 2


def encode(model, texts):
    return model.encode(texts)


def test_registered_names_and_metadata():
    import mteb

    import mteb_contrastive  # noqa: F401  (registers)

    names = {m.name for m in registered_model_metas()}
    assert names == set(BASELINES) and all("/" in n for n in names)
    for n in names:
        meta = mteb.get_model_meta(n)
        assert meta.public_training_data.startswith("fitted at evaluation time on")


def test_tfidf_words_cosine_by_hand():
    m = TfidfBaseline(kind="words")
    m.fit(["apple banana", "apple cherry"])
    e = encode(m, ["apple banana", "apple cherry"])
    # smooth idf: idf(apple) = ln(3/3) + 1 = 1, idf(banana) = idf(cherry) = ln(3/2) + 1
    w = math.log(1.5) + 1
    expected = 1.0 / (1.0 + w * w)
    assert float(m.similarity_pairwise(e[:1], e[1:])[0]) == pytest.approx(expected, abs=1e-12)
    assert float(m.similarity_pairwise(e[:1], e[:1])[0]) == pytest.approx(1.0)
    assert m.fit_summary["fit_n_texts"] == 2 and m.fit_summary["fit_on_evaluated_texts"] == 1


def test_tfidf_bigrams_and_char3_vocabularies():
    b = TfidfBaseline(kind="bigrams")
    b.fit(["red car fast", "red car slow"])
    assert sorted(b.vectorizer.vocabulary_) == ["car fast", "car slow", "red car"]
    c = TfidfBaseline(kind="char3")
    c.fit(["abcd"])
    assert sorted(c.vectorizer.vocabulary_) == ["abc", "bcd"]
    e = encode(c, ["abcd", "xbcd", "zzzz"])
    s = c.similarity(e, e).numpy()
    assert s[0, 1] == pytest.approx(1 / math.sqrt(2)) and s[0, 2] == 0.0


def test_bm25_halvest_protocol_by_hand():
    m = BM25TripletBaseline()
    # background = the 4 candidates only; the anchor "b" is scored against each candidate
    m.fit(["b", "a b", "a c", "d e", "d f"], candidate_texts=["a b", "a c", "d e", "d f"])
    e = encode(m, ["b", "a b", "a c"])
    pos, neg = m.similarity_pairwise(e[[0, 0]], e[[1, 2]]).numpy()
    # BM25Okapi: N=4, df(b)=1: idf = ln((4 - 1 + .5) / 1.5) = ln(7/3); |d| = avgdl = 2, tf=1 -> tf part 1
    assert pos == pytest.approx(math.log(7 / 3)) and neg == 0.0
    assert m.fit_summary["bm25_background_n_texts"] == 4 and m.avgdl == 2.0
    # asymmetric: candidate "a b" as query against the anchor "b" as document (|d| = 1)
    back = float(m.similarity_pairwise(e[[1]], e[[0]])[0])
    # only b matches (idf(a) = ln(2.5/2.5) = 0): ln(7/3) * 2.5 / (1 + 1.5 * (0.25 + 0.75 / 2))
    assert back == pytest.approx(math.log(7 / 3) * 2.5 / (1 + 1.5 * (0.25 + 0.375)))


def test_bm25_negative_idf_floor_as_bm25okapi():
    m = BM25TripletBaseline()
    m.fit(["a b", "a c", "a d"], candidate_texts=["a b", "a c", "a d"])
    # idf(a) = ln(.5 / 3.5) < 0 -> 0.25 * mean(ln(1/7), 3 x ln(5/3)); idf(b) = ln(2.5 / 1.5)
    floor = 0.25 * (math.log(1 / 7) + 3 * math.log(5 / 3)) / 4
    e = encode(m, ["a b", "a c"])
    pos, neg = m.similarity_pairwise(e[[0, 0]], e[[0, 1]]).numpy()
    assert pos == pytest.approx(floor + math.log(5 / 3)) and neg == pytest.approx(floor)


def test_sparse_keys_are_exact_rows():
    m = TfidfBaseline(kind="words")
    m.fit(PASSAGES)
    e1 = encode(m, PASSAGES[:3])
    e2 = encode(m, PASSAGES[3:6])
    assert e1.ravel().tolist() == [0, 1, 2] and e2.ravel().tolist() == [3, 4, 5]
    s = m.similarity(e1, e2).numpy()
    x = m.vectorizer.transform(PASSAGES[:6]).toarray()
    np.testing.assert_allclose(s, x[:3] @ x[3:6].T, atol=1e-12)


def test_not_fitted_is_a_clear_error():
    for m in (TfidfBaseline(), BM25TripletBaseline(), Doc2VecBaseline()):
        with pytest.raises(NotFittedError, match="must be fitted first"):
            m.encode(["x"])
    with pytest.raises(ValueError, match="unknown TF-IDF kind"):
        TfidfBaseline(kind="trigrams")
    with pytest.raises(ValueError, match="no token"):
        Word2VecAverage().fit(["!!", "??"])


def test_doc2vec_deterministic_and_trains_on_train_split():
    a, b = Doc2VecBaseline(seed=1, epochs=5), Doc2VecBaseline(seed=1, epochs=5)
    a.fit(PASSAGES[:4], train_texts=PASSAGES)
    b.fit(PASSAGES[:4], train_texts=PASSAGES)
    ea, eb = encode(a, PASSAGES[:4]), encode(b, PASSAGES[:4])
    assert ea.shape == (4, 200)
    np.testing.assert_array_equal(ea, eb)
    # order of inference does not change a text's vector
    np.testing.assert_array_equal(encode(a, PASSAGES[:4][::-1])[::-1], ea)
    assert a.fit_summary["fit_on_train_split"] == 1 and a.fit_summary["fit_n_texts"] == len(PASSAGES)
    c = Doc2VecBaseline(seed=1, epochs=5)
    c.fit(PASSAGES)
    assert c.fit_summary["fit_unsupervised_on_evaluated_texts"] == 1


def test_word2vec_avg_deterministic():
    a, b = Word2VecAverage(seed=3), Word2VecAverage(seed=3)
    a.fit(PASSAGES)
    b.fit(PASSAGES)
    np.testing.assert_array_equal(encode(a, PASSAGES), encode(b, PASSAGES))
    assert not encode(a, ["unknownword"]).any()  # no known word -> zero vector


_HASH_SCRIPT = """
import hashlib, numpy as np
from mteb_contrastive.baselines.gensim_models import Doc2VecBaseline
P = {p!r}
m = Doc2VecBaseline(seed=0, epochs=5); m.fit(P)
print(hashlib.sha256(np.ascontiguousarray(m.encode(P)).tobytes()).hexdigest())
"""


def test_doc2vec_same_vectors_across_processes_with_different_hash_seeds():
    outs = []
    for hs in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hs, PYTHONPATH=str(ROOT / "src"))
        r = subprocess.run([sys.executable, "-c", _HASH_SCRIPT.format(p=PASSAGES)], env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr[-2000:]
        outs.append(r.stdout.strip())
    assert outs[0] == outs[1] and len(outs[0]) == 64


def test_search_protocol_tfidf_and_doc2vec():
    from datasets import Dataset

    corpus = Dataset.from_list([{"id": f"d{i}", "text": t} for i, t in enumerate(PASSAGES[:6])])
    queries = Dataset.from_list([{"id": "q0", "text": "hypersonic heat transfer"}, {"id": "q1", "text": "shells buckling pressure"}])
    m = TfidfBaseline(kind="words")
    m.index(corpus)
    res = m.search(queries, top_k=2)
    assert set(res["q0"]) == {"d2", "d3"} and set(res["q1"]) == {"d4", "d5"}
    assert m.fit_summary["fit_n_texts"] == 6 and m.fit_summary["fit_on_retrieval_corpus"] == 1
    d = Doc2VecBaseline(epochs=5)
    d.index(corpus)
    res = d.search(queries, top_k=3)
    assert all(len(v) == 3 for v in res.values())


def test_stock_mteb_run_end_to_end(tmp_path):
    """``mteb run -m mteb-contrastive/tfidf-words -t CranfieldIRTriplets`` in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), HF_HUB_OFFLINE="1", MTEB_CONTRASTIVE_CACHE=str(tmp_path / "cache"),
               MTEB_CONTRASTIVE_CRANFIELD=str(SHARED / "ir" / "cranfield"))
    mteb_bin = Path(sys.executable).with_name("mteb")
    cmd = [str(mteb_bin), "run", "-m", "mteb-contrastive/tfidf-words", "-t", "CranfieldIRTriplets", "--output-folder", str(tmp_path / "res"), "-v", "0"]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    [path] = list((tmp_path / "res").rglob("CranfieldIRTriplets.json"))
    s = json.loads(path.read_text())["scores"]["test"][0]
    assert s["n_triplets"] == 350
    assert s["accuracy"] == pytest.approx(292 / 350, abs=1e-6)  # measured: 292 of 350 right
    assert s["error_rate"] == pytest.approx(100 * 58 / 350, abs=1e-4)
    assert s["fit_on_evaluated_texts"] == 1 and s["fit_n_texts"] == s["n_unique_texts"]
