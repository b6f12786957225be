"""The one scoring path (protocols/scoring.py) and attribution's use of it: blocked scores equal the old
per-pair path, fitting on the known texts only (a questioned text never changes the known texts' attribution)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mteb_contrastive.baselines.compression import PPMdCBC
from mteb_contrastive.baselines.sparse import TfidfBaseline
from mteb_contrastive.baselines.stylometry import BurrowsDelta, CosineDelta
from mteb_contrastive.protocols import scoring
from mteb_contrastive.protocols.attribution import AbsTaskAttribution, Problem, text_sample
from mteb_contrastive.protocols.fitting import score_pairs

WORDS = ["the", "a", "of", "and", "cat", "dog", "sat", "ran", "mat", "sun", "to", "in"]


def _old_candidate_scores(problem: Problem, sim: np.ndarray, items: list[int], leave_out: str) -> np.ndarray:
    """The protocol's former double loop over a full (n_texts, n_texts) similarity matrix (reference)."""
    out = np.full((len(items), len(problem.authors)), -np.inf)
    for r, q in enumerate(items):
        own = problem.code.get(problem.texts[q]["author"]) if problem.texts[q]["role"] == "known" else None
        for a, members in enumerate(problem.by_author):
            if leave_out == "author" and a == own:
                continue
            ks = [k for k in members if not (leave_out == "text" and k == q)]
            if ks:
                out[r, a] = float(np.mean(sim[q, ks]))
    return out


def _old_pair_matrix(model, samples: list[str]) -> np.ndarray:
    """The former all-pairs matrix: every i < j pair scored as (i, j), mirrored."""
    i, j = np.triu_indices(len(samples), k=1)
    s = score_pairs(model, [samples[a] for a in i], [samples[b] for b in j])
    sim = np.zeros((len(samples), len(samples)))
    sim[i, j] = s
    sim[j, i] = s
    return sim


def _texts(draw_authors: list[int], words: list[list[int]], questioned: int) -> list[dict]:
    texts = []
    for k, (a, w) in enumerate(zip(draw_authors, words)):
        role = "questioned" if k >= len(draw_authors) - questioned else "known"
        chunk = " ".join(WORDS[x] for x in w)
        texts.append(
            {"id": f"t{k}", "author": None if role == "questioned" else "ABCD"[a], "role": role, "chunks": [chunk]}
        )
    return texts


@st.composite
def corpora(draw, max_texts: int = 9):
    n = draw(st.integers(5, max_texts))
    authors = [0, 0, 1, *draw(st.lists(st.integers(0, 3), min_size=n - 3, max_size=n - 3))]
    words = draw(st.lists(st.lists(st.integers(0, len(WORDS) - 1), min_size=3, max_size=12), min_size=n, max_size=n))
    words = [w + [k % len(WORDS)] for k, w in enumerate(words)]  # no two texts alike by construction (n <= 12)
    return authors, words, draw(st.integers(0, 2))


def _sums(model, problem: Problem, *, block: int | None = None) -> np.ndarray:
    fake = SimpleNamespace(metadata=SimpleNamespace(name="Toy"))
    if block is None:
        return AbsTaskAttribution._similarities(
            fake, model, problem, hf_split="test", hf_subset="default", encode_kwargs={}, num_proc=None
        )[0]
    samples = [text_sample(t) for t in problem.texts]
    model.fit([samples[i] for i in problem.known])
    blocks = scoring.similarity_blocks(
        model,
        scoring.PAIR_SCORER,
        [samples[i] for i in problem.rows],
        [samples[i] for i in problem.columns],
        rows_per_block=block,
    )
    return problem.author_sums(blocks)


MODELS = [
    lambda: TfidfBaseline(kind="char3"),
    lambda: BurrowsDelta(n_mfw=5),
    lambda: CosineDelta(n_mfw=5),
    lambda: PPMdCBC(),
]


@pytest.mark.parametrize("make", MODELS, ids=["tfidf-char3", "burrows-delta", "cosine-delta", "ppmd"])
@settings(max_examples=8, deadline=None)
@given(corpus=corpora(), block=st.integers(1, 4))
def test_blocked_candidate_scores_equal_the_old_pair_path(make, corpus, block):
    authors, words, n_q = corpus
    texts = _texts(authors, words, n_q)
    try:
        problem = Problem(texts)
    except ValueError:
        return  # fewer than two candidates among the known texts: the protocol refuses it
    model = make()
    sums = _sums(model, problem, block=block)
    samples = [text_sample(t) for t in texts]
    sim = _old_pair_matrix(model, samples)  # same fitted model (known texts), old per-pair path
    for items, leave_out in (
        (problem.evaluated, "text"),
        (problem.evaluated, "author"),
        (problem.questioned, "nothing"),
    ):
        new = problem.candidate_scores(sums, items, leave_out=leave_out)
        old = _old_candidate_scores(problem, sim, items, leave_out)
        assert np.array_equal(np.isinf(new), np.isinf(old))
        np.testing.assert_allclose(new[np.isfinite(new)], old[np.isfinite(old)], rtol=1e-10, atol=1e-12)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(2, 9), dim=st.integers(1, 5), seed=st.integers(0, 2**16), block=st.integers(1, 5))
def test_encoder_blocks_equal_the_full_product(n, dim, seed, block):
    v = np.random.default_rng(seed).standard_normal((n, dim))
    full = v @ v[: n - 1].T
    got = np.vstack(
        [b for _, b in scoring.similarity_blocks(None, scoring.ENCODER, v, v[: n - 1], rows_per_block=block)]
    )
    np.testing.assert_allclose(got, full, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("make", MODELS[:3], ids=["tfidf-char3", "burrows-delta", "cosine-delta"])
def test_block_scores_equal_score_pairs(make):
    texts = ["the cat sat on the mat", "a dog ran to the sun", "the sun and the cat", "of mat and dog", "sat sat"]
    model = make()
    model.fit(texts[:3])
    q, d = model.pair_vectors(texts)[0], model.pair_vectors(texts[1:])[1]
    block = model.block_scores(q, d)
    i, j = np.meshgrid(np.arange(len(texts)), np.arange(len(texts) - 1), indexing="ij")
    pairs = model.score_pairs([texts[a] for a in i.ravel()], [texts[1 + b] for b in j.ravel()])
    np.testing.assert_allclose(block.ravel(), pairs, rtol=1e-12, atol=1e-12)


def test_a_block_never_holds_more_than_the_budget():
    assert scoring.block_rows(1000) * 1000 * 8 <= scoring.BLOCK_BYTES
    assert scoring.block_rows(10**9) == 1


# --- fitted on the known texts only ----------------------------------------------------------------------------
# 4 known texts (A: a1, a2; B: b1, b2) and one questioned text; Delta on the 3 most frequent words
DELTA_TEXTS = [
    ("a1", "A", "the the the cat of"),
    ("a2", "A", "the the cat cat of"),
    ("b1", "B", "of of of the cat"),
    ("b2", "B", "of of cat the the"),
    ("q", None, "cat cat cat cat cat cat cat cat cat the"),
]


def _delta_texts(with_questioned: bool) -> list[dict]:
    rows = DELTA_TEXTS if with_questioned else DELTA_TEXTS[:4]
    return [{"id": i, "author": a, "role": "known" if a else "questioned", "chunks": [t]} for i, a, t in rows]


def test_a_questioned_text_does_not_change_delta_on_the_known_texts():
    scores = {}
    for with_q in (False, True):
        problem = Problem(_delta_texts(with_q))
        closed = problem.candidate_scores(_sums(BurrowsDelta(n_mfw=3), problem), problem.evaluated, leave_out="text")
        scores[with_q] = closed
    np.testing.assert_array_equal(scores[True], scores[False])
    assert (scores[True].argmax(axis=1) == np.array([0, 0, 1, 1])).all()  # every known text attributed right
    # fitted on every text (the former rule), the questioned text's "cat" moves the z-scores of the known texts
    model = BurrowsDelta(n_mfw=3)
    problem = Problem(_delta_texts(True))
    samples = [text_sample(t) for t in problem.texts]
    model.fit(samples)
    everything = _old_candidate_scores(problem, _old_pair_matrix(model, samples), problem.evaluated, "text")
    assert everything.argmax(axis=1).tolist() == [0, 0, 1, 0]  # b2 now attributed to A: accuracy 1.0 -> 0.75


@settings(max_examples=10, deadline=None)
@given(
    corpus=corpora(),
    extra=st.lists(st.lists(st.integers(0, len(WORDS) - 1), min_size=1, max_size=15), min_size=1, max_size=3),
)
def test_adding_questioned_texts_never_changes_the_known_attribution(corpus, extra):
    authors, words, _ = corpus
    texts = _texts(authors, words, 0)
    try:
        problem = Problem(texts)
    except ValueError:
        return
    more = texts + [
        {"id": f"q{k}", "author": None, "role": "questioned", "chunks": [" ".join(WORDS[x] for x in w)]}
        for k, w in enumerate(extra)
    ]
    bigger = Problem(more)
    for make in MODELS[:3]:
        a = problem.candidate_scores(_sums(make(), problem), problem.evaluated, leave_out="text")
        b = bigger.candidate_scores(_sums(make(), bigger), bigger.evaluated, leave_out="text")
        np.testing.assert_array_equal(a, b)


def test_scorer_kind_names_what_it_needs():
    with pytest.raises(TypeError, match="it needs an encoder or a fitted baseline, got object"):
        scoring.scorer_kind(object(), "Toy", accepts=(scoring.ENCODER, scoring.PAIR_SCORER))
    assert scoring.scorer_kind(BurrowsDelta(), "Toy") == scoring.PAIR_SCORER


# --- cross-fitting: nothing a held-out text is compared with was fitted on it ------------------------------------
class _SpyScorer:
    """A pair scorer that remembers what it was fitted on and checks every scored query against it."""

    has_vectors = False

    def __init__(self) -> None:
        self.fits: list[set[str]] = []
        self.scored: list[tuple[str, frozenset[str]]] = []

    def fit(self, texts, **_):
        self.fits.append(set(texts))

    def score_pairs(self, queries, docs):
        for q in set(queries):
            self.scored.append((q, frozenset(self.fits[-1])))
        return np.array([float(len(set(q.split()) & set(d.split()))) for q, d in zip(queries, docs)])


@settings(max_examples=25, deadline=None)
@given(corpus=corpora(max_texts=12))  # at most 12 texts: unlike by construction
def test_a_held_out_text_is_scored_by_a_model_never_fitted_on_it(corpus):
    authors, words, n_q = corpus
    texts = _texts(authors, words, n_q)
    try:
        problem = Problem(texts)
    except ValueError:
        return
    spy = _SpyScorer()
    _sums(spy, problem)
    samples = [text_sample(t) for t in texts]
    known = {samples[i] for i in problem.known}
    evaluated = {samples[i] for i in problem.evaluated}
    assert {q for q, _ in spy.scored} == evaluated | {samples[i] for i in problem.questioned}
    for q, fit in spy.scored:
        assert fit <= known  # never a questioned text
        if q in evaluated:
            assert q not in fit  # the held-out text is outside the model that scores it
        else:
            assert fit == known  # questioned texts: the model of every known text
    assert spy.fits[-1] == known  # fitted last on every known text (the result's fit_summary)
    assert len(spy.fits) == min(5, len(problem.evaluated)) + 1


@pytest.mark.parametrize("make", MODELS[:3], ids=["tfidf-char3", "burrows-delta", "cosine-delta"])
def test_cross_fitted_rows_equal_the_model_fitted_without_the_fold(make):
    """By the plan: each evaluated row equals the similarities of the model fitted on the known texts
    outside its fold (here 4 evaluated texts, so each fold is one text: exact leave-one-out)."""
    from mteb_contrastive.protocols.attribution import cross_fit_plan

    problem = Problem(_delta_texts(True))
    sums = _sums(make(), problem)
    samples = [text_sample(t) for t in problem.texts]
    plan = cross_fit_plan(problem)
    assert [rows for _, rows in plan] == [[0], [1], [2], [3]]
    for fit_on, rows in plan:
        model = make()
        model.fit([samples[i] for i in fit_on])
        q = rows[0]
        cols = [c for c in problem.columns]
        s = score_pairs(model, [samples[q]] * len(cols), [samples[c] for c in cols])
        s[cols.index(q)] = 0.0  # its own text left out
        want = np.add.reduceat(s, problem.column_starts)
        np.testing.assert_allclose(sums[problem.row_of[q]], want, rtol=1e-10, atol=1e-12)


def test_fitting_on_the_held_out_text_changes_delta_by_hand():
    """The issue's kind: Delta's z-scores fitted on every known text include the held-out text. b2's own
    "the the" is what makes "the" vary; fitted without it, b2 is scored by statistics of a1, a2, b1."""
    problem = Problem(_delta_texts(False))
    cross = problem.candidate_scores(_sums(BurrowsDelta(n_mfw=3), problem), problem.evaluated, leave_out="text")
    model = BurrowsDelta(n_mfw=3)
    samples = [text_sample(t) for t in problem.texts]
    model.fit(samples)  # every known text, the held-out one among them (the former rule)
    every = _old_candidate_scores(problem, _old_pair_matrix(model, samples), problem.evaluated, "text")
    assert not np.allclose(cross, every)  # the held-out text's own statistics moved its scores
