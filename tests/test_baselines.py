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

from mteb_contrastive.baselines import BASELINES
from mteb_contrastive.baselines import baseline_revision as revision
from mteb_contrastive.baselines.base import NotFittedError, canonical_order
from mteb_contrastive.baselines.gensim_models import Doc2VecBaseline, Word2VecAverage
from mteb_contrastive.baselines.sparse import BM25sTripletBaseline, BM25TripletBaseline, TfidfBaseline
from mteb_contrastive.data.text import whitespace_tokens, word_spans, word_tokens
from mteb_contrastive.models.baselines import registered_model_metas

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


def test_registered_names_and_metadata():
    import mteb

    import mteb_contrastive  # noqa: F401  (registers)

    names = {m.name for m in registered_model_metas()}
    assert names == set(BASELINES) and all("/" in n for n in names)
    for n in names:
        meta = mteb.get_model_meta(n)
        assert meta.public_training_data.startswith("fitted at evaluation time on")
        assert meta.revision == revision(n)
    # a revision is the content: same class and parameters -> same revision, other parameters -> another
    revs = {n: revision(n) for n in names}
    assert len(set(revs.values())) == len(revs)


def test_baselines_are_pair_scorers_and_search_models_not_encoders():
    from mteb.models.models_protocols import EncoderProtocol, SearchProtocol

    from mteb_contrastive.protocols.fitting import PairScorer, is_pair_scorer

    for m in (TfidfBaseline(), BM25TripletBaseline(), BM25sTripletBaseline(), Doc2VecBaseline(), Word2VecAverage()):
        assert is_pair_scorer(m) and isinstance(m, PairScorer) and isinstance(m, SearchProtocol)
        assert not isinstance(m, EncoderProtocol) and not hasattr(m, "encode")


def test_tfidf_words_cosine_by_hand():
    m = TfidfBaseline(kind="words")
    m.fit(["apple banana", "apple cherry"])
    # smooth idf: idf(apple) = ln(3/3) + 1 = 1, idf(banana) = idf(cherry) = ln(3/2) + 1
    w = math.log(1.5) + 1
    expected = 1.0 / (1.0 + w * w)
    s = m.score_pairs(["apple banana", "apple banana"], ["apple cherry", "apple banana"])
    assert s.dtype == np.float64 and s.shape == (2,)
    assert s[0] == pytest.approx(expected, abs=1e-12) and s[1] == pytest.approx(1.0)
    assert m.fit_summary["fit_n_texts"] == 2 and m.fit_summary["fit_on_evaluated_texts"] == 1


def test_tfidf_bigrams_are_unigrams_plus_bigrams_and_char3():
    b = TfidfBaseline(kind="bigrams")
    b.fit(["red car fast", "red car slow"])
    assert sorted(b.vectorizer.vocabulary_) == ["car", "car fast", "car slow", "fast", "red", "red car", "slow"]
    # shared: red, car, "red car" (df 2, idf 1); own: fast, "car fast" (df 1, idf w) -> 3 / (3 + 2 w^2)
    w = math.log(1.5) + 1
    assert b.score_pairs(["red car fast"], ["red car slow"])[0] == pytest.approx(3 / (3 + 2 * w * w), abs=1e-12)
    # word order: the same bag of words (cosine 1 with unigrams) differs with bigrams
    texts = ["dog bites man", "man bites dog"]
    words = TfidfBaseline(kind="words")
    words.fit(texts)
    b.fit(texts)
    assert words.score_pairs(texts[:1], texts[1:])[0] == pytest.approx(1.0)
    # 3 shared unigrams (idf 1) of 5 features each (2 own bigrams, idf w): 3 / (3 + 2 w^2)
    assert b.score_pairs(texts[:1], texts[1:])[0] == pytest.approx(3 / (3 + 2 * w * w), abs=1e-12)
    c = TfidfBaseline(kind="char3")
    c.fit(["abcd"])
    assert sorted(c.vectorizer.vocabulary_) == ["abc", "bcd"]
    s = c.score_pairs(["abcd", "abcd"], ["xbcd", "zzzz"])
    assert s[0] == pytest.approx(1 / math.sqrt(2)) and s[1] == 0.0


def test_bm25_halvest_protocol_by_hand():
    m = BM25TripletBaseline()
    # background = the 4 candidates only; the anchor "b" is scored against each candidate
    m.fit(["b", "a b", "a c", "d e", "d f"], candidate_texts=["a b", "a c", "d e", "d f"])
    pos, neg = m.score_pairs(["b", "b"], ["a b", "a c"])
    # BM25Okapi: N=4, df(b)=1: idf = ln((4 - 1 + .5) / 1.5) = ln(7/3); |d| = avgdl = 2, tf=1 -> tf part 1
    assert pos == pytest.approx(math.log(7 / 3)) and neg == 0.0
    assert m.fit_summary["bm25_background_n_texts"] == 4 and m.avgdl == 2.0
    # asymmetric: candidate "a b" as query against the anchor "b" as document (|d| = 1)
    back = float(m.score_pairs(["a b"], ["b"])[0])
    # only b matches (idf(a) = ln(2.5/2.5) = 0): ln(7/3) * 2.5 / (1 + 1.5 * (0.25 + 0.75 / 2))
    assert back == pytest.approx(math.log(7 / 3) * 2.5 / (1 + 1.5 * (0.25 + 0.375)))


def test_bm25_negative_idf_floor_as_bm25okapi():
    m = BM25TripletBaseline()
    m.fit(["a b", "a c", "a d"], candidate_texts=["a b", "a c", "a d"])
    # idf(a) = ln(.5 / 3.5) < 0 -> 0.25 * mean(ln(1/7), 3 x ln(5/3)); idf(b) = ln(2.5 / 1.5)
    floor = 0.25 * (math.log(1 / 7) + 3 * math.log(5 / 3)) / 4
    pos, neg = m.score_pairs(["a b", "a b"], ["a b", "a c"])
    assert pos == pytest.approx(floor + math.log(5 / 3)) and neg == pytest.approx(floor)


def test_not_fitted_is_a_clear_error():
    for m in (TfidfBaseline(), BM25TripletBaseline(), BM25sTripletBaseline(), Doc2VecBaseline()):
        with pytest.raises(NotFittedError, match="must be fitted first"):
            m.score_pairs(["x"], ["y"])
    with pytest.raises(ValueError, match="unknown Doc2Vec variant"):
        Doc2VecBaseline(variant="dm-sum")
    with pytest.raises(ValueError, match="unknown TF-IDF kind"):
        TfidfBaseline(kind="trigrams")
    with pytest.raises(ValueError, match="no token"):
        Word2VecAverage().fit(["!!", "??"])


def test_doc2vec_deterministic_and_trains_on_train_split():
    a, b = Doc2VecBaseline(seed=1, epochs=5), Doc2VecBaseline(seed=1, epochs=5)
    a.fit(PASSAGES[:4], train_texts=PASSAGES)
    b.fit(PASSAGES[:4], train_texts=PASSAGES)
    ea, eb = a._represent(PASSAGES[:4]), b._represent(PASSAGES[:4])
    assert ea.shape == (4, 200)  # PV-DM (concatenation) + PV-DBOW, 100 dims each
    np.testing.assert_array_equal(ea, eb)
    # order of inference does not change a text's vector
    np.testing.assert_array_equal(a._represent(PASSAGES[:4][::-1])[::-1], ea)
    assert a.fit_summary["fit_on_train_split"] == 1 and a.fit_summary["fit_n_texts"] == len(set(PASSAGES))
    c = Doc2VecBaseline(seed=1, epochs=5)
    c.fit(PASSAGES)
    assert c.fit_summary["fit_unsupervised_on_evaluated_texts"] == 1


def test_word2vec_avg_deterministic():
    a, b = Word2VecAverage(seed=3), Word2VecAverage(seed=3)
    a.fit(PASSAGES)
    b.fit(PASSAGES)
    np.testing.assert_array_equal(a._represent(PASSAGES), b._represent(PASSAGES))
    assert not a._represent(["unknownword"]).any()  # no known word -> zero vector


_HASH_SCRIPT = """
import hashlib, numpy as np
from mteb_contrastive.baselines.gensim_models import Doc2VecBaseline
P = {p!r}
m = Doc2VecBaseline(seed=0, epochs=5); m.fit(P)
print(hashlib.sha256(np.ascontiguousarray(m.score_pairs(P, P[::-1])).tobytes()).hexdigest())
"""


def test_doc2vec_same_vectors_across_processes_with_different_hash_seeds():
    outs = []
    for hs in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hs, PYTHONPATH=str(ROOT / "src"))
        r = subprocess.run(
            [sys.executable, "-c", _HASH_SCRIPT.format(p=PASSAGES)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0, r.stderr[-2000:]
        outs.append(r.stdout.strip())
    assert outs[0] == outs[1] and len(outs[0]) == 64


def test_search_protocol_tfidf_and_doc2vec():
    from datasets import Dataset

    corpus = Dataset.from_list([{"id": f"d{i}", "text": t} for i, t in enumerate(PASSAGES[:6])])
    queries = Dataset.from_list(
        [{"id": "q0", "text": "hypersonic heat transfer"}, {"id": "q1", "text": "shells buckling pressure"}]
    )
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
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT / "src"),
        HF_HUB_OFFLINE="1",
        MTEB_CONTRASTIVE_CACHE=str(tmp_path / "cache"),
        MTEB_CONTRASTIVE_CRANFIELD=str(SHARED / "ir" / "cranfield"),
    )
    mteb_bin = Path(sys.executable).with_name("mteb")
    cmd = [
        str(mteb_bin),
        "run",
        "-m",
        "mteb-contrastive/tfidf-words",
        "-t",
        "CranfieldIRTriplets",
        "--output-folder",
        str(tmp_path / "res"),
        "-v",
        "0",
    ]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    [path] = list((tmp_path / "res").rglob("CranfieldIRTriplets.json"))
    s = json.loads(path.read_text())["scores"]["test"][0]
    assert s["n_triplets"] == 350
    assert s["accuracy"] == pytest.approx(292 / 350, abs=1e-6)  # measured: 292 of 350 right
    assert s["error_rate"] == pytest.approx(100 * 58 / 350, abs=1e-4)
    assert s["fit_on_evaluated_texts"] == 1 and s["fit_n_texts"] == s["n_unique_texts"]


# -------------------------------------------------------------------------------- word features


def test_word_tokens_per_script():
    assert word_tokens("Windy London, l'été!") == ["windy", "london", "l", "été"]
    assert word_tokens("Windy London, l'été!", min_len=2) == ["windy", "london", "été"]
    # Chinese: jieba's words, not the whole clause; punctuation dropped
    assert word_tokens("我们今天去北京大学。") == ["我们", "今天", "去", "北京大学"]
    # Chinese next to Latin without a space
    assert word_tokens("GPT模型") == ["gpt", "模型"]
    # Japanese kana and Thai: character bigrams
    assert word_tokens("ありがとう") == ["あり", "りが", "がと", "とう"]
    assert word_tokens("สวัสดี") == ["สว", "วั", "ัส", "สด", "ดี"]
    # the authors' BM25 tokens: whitespace split on spaced scripts (punctuation kept), CJK split further
    assert whitespace_tokens("Hello there, good man!") == ["hello", "there,", "good", "man!"]
    assert whitespace_tokens("我们今天 去北京") == ["我们", "今天", "去", "北京"]


def test_tfidf_on_chinese_uses_words_not_clauses():
    docs = ["我们今天去北京大学", "他们明天去北京大学", "我们喜欢吃苹果"]
    m = TfidfBaseline(kind="words")
    m.fit(docs)
    assert {"我们", "北京大学", "苹果"} <= set(m.vectorizer.vocabulary_)
    assert "我们今天去北京大学" not in m.vectorizer.vocabulary_
    # shared words give a positive cosine (a whole-clause token would give 0 for every pair)
    s = m.score_pairs([docs[0], docs[0]], [docs[1], docs[2]])
    assert s[0] > 0 and s[1] > 0
    # hand value: words 我们 今天 去 北京大学 / 他们 明天 去 北京大学; df(去) = df(北京大学) = 2, others 1 (我们: 2)
    idf = {1: math.log(4 / 2) + 1, 2: math.log(4 / 3) + 1}
    a = {"我们": idf[2], "今天": idf[1], "去": idf[2], "北京大学": idf[2]}
    b = {"他们": idf[1], "明天": idf[1], "去": idf[2], "北京大学": idf[2]}
    cos = sum(a[k] * b.get(k, 0) for k in a) / math.sqrt(
        sum(v * v for v in a.values()) * sum(v * v for v in b.values())
    )
    assert s[0] == pytest.approx(cos, abs=1e-12)


def test_bm25_retrieval_on_chinese_segments_words():
    """Retrieval in a language without spaces: both BM25 baselines search on jieba words, not clauses."""
    import mteb
    from datasets import Dataset

    meta = mteb.get_task("QuoteRIdiomChineseRetrieval").metadata  # cmn-Hans
    corpus = Dataset.from_list(
        [
            {"id": "c0", "text": "我们今天去北京大学"},
            {"id": "c1", "text": "他们喜欢吃苹果"},
            {"id": "c2", "text": "天气很好"},
        ]
    )
    queries = Dataset.from_list([{"id": "q", "text": "我们喜欢北京"}])
    for m in (BM25TripletBaseline(), BM25sTripletBaseline()):
        m.index(corpus, task_metadata=meta)
        res = m.search(queries, top_k=3, task_metadata=meta)["q"]
        # c0 shares 我们, c1 shares 喜欢, c2 nothing (a whole-clause token would match nothing at all)
        assert res["c0"] > 0 and res["c1"] > 0 and res.get("c2", 0.0) == 0.0
    m = BM25TripletBaseline()
    m.index(corpus, task_metadata=meta)
    assert m.fit_summary["bm25_word_segmenter"] == 1


# -------------------------------------------------------------------------------- BM25, both variants

BACKGROUND = ["Hello there good man!", "It is quite windy in London"]


def test_bm25_authors_variant_gives_idf_zero_to_a_term_in_half_the_background():
    m = BM25TripletBaseline()
    m.fit(["windy London", *BACKGROUND], candidate_texts=BACKGROUND)
    # rank_bm25 Okapi: N = 2, df = 1 -> ln((2 - 1 + 0.5) / (1 + 0.5)) = 0: both candidates 0, a tie
    assert m.score_pairs(["windy London"] * 2, BACKGROUND).tolist() == [0.0, 0.0]


def test_bm25s_triplet_scorer_is_a_correct_bm25():
    m = BM25sTripletBaseline()
    m.fit(["windy London", *BACKGROUND], candidate_texts=BACKGROUND)
    s = m.score_pairs(["windy London"] * 2, BACKGROUND)
    # Lucene idf ln(1 + (2 - 1 + .5) / (1 + .5)) = ln 2; |d| = 6 tokens, avgdl = (4 + 6) / 2 = 5;
    # per term: ln 2 * 1 * 2.5 / (1 + 1.5 * (0.25 + 0.75 * 6 / 5)); two terms
    expected = 2 * math.log(2) * 2.5 / (1 + 1.5 * (0.25 + 0.75 * 6 / 5))
    assert expected == pytest.approx(1.27183, abs=5e-6)
    assert s[0] == 0.0 and s[1] == pytest.approx(expected, rel=1e-6)  # bm25s computes in float32
    with pytest.raises(ValueError, match="background documents only"):
        m.score_pairs(["windy London"], ["not a candidate"])


def test_both_bm25_rows_through_the_triplet_protocol():
    rows = [
        {
            "query": "windy London",
            "positive": BACKGROUND[1],
            "negative": BACKGROUND[0],
            "query_halid": "a",
            "pos_halid": "b",
        }
    ]
    assert _triplet_scores(BM25TripletBaseline(), rows)["accuracy"] == 0.0  # the tie is an error
    s = _triplet_scores(BM25sTripletBaseline(), rows)
    assert s["accuracy"] == 1.0 and s["n_ties"] == 0 and s["bm25_background_n_texts"] == 2


# -------------------------------------------------------------------------------- protocols and fit order


def _triplet_task():
    import mteb

    import mteb_contrastive  # noqa: F401

    task = mteb.get_task("HALvestTripletClassification")
    return task


def _triplet_scores(model, rows):
    task = _triplet_task()
    task.dataset = {"k-2": {"test": rows}}
    task.data_loaded = True
    return task._evaluate_subset(model, rows, hf_split="test", hf_subset="k-2", encode_kwargs={})


def _thirty_triplets():
    rng = np.random.default_rng(0)
    topics = [
        ["wing", "lift", "propeller", "slipstream", "flow"],
        ["heat", "transfer", "hypersonic", "boundary", "layer"],
        ["buckling", "thin", "shells", "pressure", "cylinder"],
        ["panel", "flutter", "supersonic", "mode", "damping"],
    ]
    common = ["the", "of", "in", "and", "at", "under", "measured", "results"]

    def text(t):
        return " ".join(rng.choice(topics[t] * 2 + common, size=12))

    rows = []
    for i in range(30):
        t, o = i % 4, (i + 1 + i // 4) % 4
        if o == t:
            o = (t + 1) % 4
        rows.append(
            {"query": text(t), "positive": text(t), "negative": text(o), "query_halid": f"q{i}", "pos_halid": f"p{i}"}
        )
    return rows


def test_fit_depends_only_on_the_set_of_texts():
    rows = _thirty_triplets()
    shuffled = list(rows)
    np.random.default_rng(1).shuffle(shuffled)
    texts = [t for r in rows for t in (r["query"], r["positive"], r["negative"])]
    assert canonical_order(texts) == canonical_order(texts[::-1]) == canonical_order(texts + texts[:5])
    a, b = Doc2VecBaseline(epochs=5), Doc2VecBaseline(epochs=5)
    a.fit(texts)
    b.fit([t for r in shuffled for t in (r["negative"], r["positive"], r["query"])])
    np.testing.assert_array_equal(a._represent(texts), b._represent(texts))
    # without the canonical order (gensim fitted on the texts as given), the order would matter
    raw1, raw2 = Doc2VecBaseline(epochs=5), Doc2VecBaseline(epochs=5)
    raw1._fit(list(dict.fromkeys(texts)), None, None)
    raw2._fit(list(dict.fromkeys(texts[::-1])), None, None)
    assert not np.array_equal(raw1._represent(texts), raw2._represent(texts))
    # through the protocol: the same triplets in another order give the same result, triplet by triplet
    s1 = _triplet_scores(Doc2VecBaseline(epochs=5), rows)
    s2 = _triplet_scores(Doc2VecBaseline(epochs=5), shuffled)
    s3 = _triplet_scores(Doc2VecBaseline(epochs=5), rows[::-1])
    assert s1["accuracy"] == s2["accuracy"] == s3["accuracy"] and s1["n_triplets"] == 30


def test_doc2vec_variants_follow_the_paper():
    a = Doc2VecBaseline(epochs=2)
    assert a.variant == "dm-concat+dbow"
    a.fit(PASSAGES)
    assert [(m.dm, m.dm_concat) for m in a.models] == [(1, 1), (0, 0)]
    assert a._represent(PASSAGES[:2]).shape == (2, 200)
    c = Doc2VecBaseline(variant="dm-concat", epochs=2)
    c.fit(PASSAGES)
    assert [(m.dm, m.dm_concat) for m in c.models] == [(1, 1)] and c._represent(PASSAGES[:2]).shape == (2, 100)
    d = Doc2VecBaseline(variant="dm-mean+dbow", epochs=2)
    d.fit(PASSAGES)
    assert [(m.dm, m.dm_concat, m.cbow_mean) for m in d.models][0] == (1, 0, 1)


class _Recording(TfidfBaseline):
    def fit(self, texts, **kw):
        self.fitted_on = list(texts)
        super().fit(texts, **kw)


def _pan_folder(root, *, single_class_test=False):
    from mteb_contrastive.data.pan import write_pairs_and_truth

    rng = np.random.default_rng(0)
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta"]

    def text(style):
        return " ".join(rng.choice(words[style * 2 : style * 2 + 2] * 3 + words, size=20))

    all_texts = set()
    for split, n in (("train", 4), ("validation", 12), ("test", 12)):
        rows = []
        for i in range(n):
            s1 = i % 4
            s2 = s1 if (i % 2 == 0 or (single_class_test and split == "test")) else (s1 + 1) % 4
            pair = [text(s1), text(s2)]
            all_texts.update(pair)
            rows.append(
                {"id": f"{split}-{i}", "fandoms": ["f", "f"], "pair": pair, "same": s1 == s2, "authors": [s1, s2]}
            )
        write_pairs_and_truth(root / split, rows)
    return all_texts


def test_verification_fits_once_on_the_texts_of_every_split(tmp_path, monkeypatch):
    """A fitted baseline in the PAN protocol sees validation + test + train texts together (no labels)."""
    import mteb

    all_texts = _pan_folder(tmp_path)
    monkeypatch.setenv("MTEB_CONTRASTIVE_PAN21", str(tmp_path))
    monkeypatch.delenv("MTEB_CONTRASTIVE_ANSWERS_DIR", raising=False)
    model = _Recording(kind="words")
    scores = mteb.get_task("PAN21Verification").evaluate(model, "test", encode_kwargs={})["default"]
    assert set(model.fitted_on) == all_texts and scores["fit_n_texts"] == len(all_texts)
    # no vectors: only mteb's metrics of the model's own scores
    assert "similarity_ap" in scores and "cosine_ap" not in scores and "max_ap" not in scores
    assert 0 <= scores["pan_platt_abstain_overall"] <= 1 and scores["pan_platt_n_overall_metrics"] == 5


def test_verification_single_class_test_reports_auc_undefined(tmp_path, monkeypatch):
    import mteb

    from mteb_contrastive.metrics.pan import UndefinedMetricWarning

    _pan_folder(tmp_path, single_class_test=True)
    monkeypatch.setenv("MTEB_CONTRASTIVE_PAN21", str(tmp_path))
    monkeypatch.delenv("MTEB_CONTRASTIVE_ANSWERS_DIR", raising=False)
    with pytest.warns(UndefinedMetricWarning):
        scores = mteb.get_task("PAN21Verification").evaluate(TfidfBaseline(kind="words"), "test", encode_kwargs={})[
            "default"
        ]
    for v in ("hard", "platt", "platt_abstain"):
        assert scores[f"pan_{v}_auc"] is None and scores[f"pan_{v}_n_overall_metrics"] == 4
        rest = [scores[f"pan_{v}_{k}"] for k in ("c_at_1", "f1", "f_05_u", "brier")]
        assert scores[f"pan_{v}_overall"] == pytest.approx(sum(rest) / 4)


def test_max_per_query_has_one_default():
    """Library, CLI and the CranfieldIRTriplets task share ``DEFAULT_MAX_PER_QUERY`` (50)."""
    import inspect

    from mteb_contrastive.data import ir_triplets as irt

    sys.path.insert(0, str(ROOT))
    from tasks.paragraph_vector import BUILD_PARAMS

    assert irt.DEFAULT_MAX_PER_QUERY == 50
    for fn in (irt.sample_ir_triplets, irt.build_ir_triplets):
        assert inspect.signature(fn).parameters["max_per_query"].default == irt.DEFAULT_MAX_PER_QUERY
    assert BUILD_PARAMS["max_per_query"] == irt.DEFAULT_MAX_PER_QUERY
    # 12 relevant documents of q1 (66 pairs or more): the default keeps 50 of them
    corpus = {f"d{i}": f"text {i}" for i in range(14)}
    qrels = {"q1": {f"d{i}": 1 for i in range(12)}, "q2": {"d12": 1, "d13": 1}}
    splits, _ = irt.sample_ir_triplets(corpus, qrels, fractions=(0.0, 0.0, 1.0))
    assert sum(r["ir_query_id"] == "q1" for r in splits["test"]) == 50


def test_word_spans_are_offsets_of_words_in_every_script():
    text = "我喜欢苹果。 Hello, world ひらがな」Ok 你好x"
    assert [text[a:b] for a, b in word_spans(text)] == [
        "我",
        "喜欢",
        "苹果",
        "。",
        "Hello,",
        "world",
        "ひ",
        "ら",
        "が",
        "な",
        "」",
        "Ok",
        "你好",
        "x",
    ]
