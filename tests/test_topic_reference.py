"""The topic-only reference reads topic words, not the style features (the corpus's most frequent words)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mteb_contrastive.baselines.table import BASELINES, TOPIC_REFERENCE, load_baseline

FUNCTION = [f"fw{i:03d}" for i in range(160)]  # 160 words in every text: the corpus's most frequent


def _corpus():
    rng = np.random.default_rng(0)
    texts = []
    for k in range(30):  # background: every function word twice, ten topic words of its own
        words = FUNCTION * 2 + [f"topic{k}x{j}" for j in range(10)]
        texts.append(" ".join(rng.permutation(words)))
    x = " ".join(FUNCTION[:40] * 3 + ["whale", "harpoon", "ship"])
    y = " ".join(FUNCTION[:40] * 3 + ["orchid", "petal", "garden"])  # shares only function words with x
    z = " ".join(FUNCTION[100:140] * 3 + ["whale", "harpoon", "ship"])  # shares only topic words with x
    return texts + [x, y, z], x, y, z


def _scores(name):
    texts, x, y, z = _corpus()
    m = load_baseline(name, **BASELINES[name][1])
    m.fit(texts)
    s = m.score_pairs([x, x], [y, z])
    return float(s[0]), float(s[1]), m


def test_topic_reference_ignores_function_words():
    words_fw, words_topic, _ = _scores("mteb-contrastive/tfidf-words")
    # the flaw of a plain bag of words: sharing only function words beats sharing only topic words
    assert words_fw > 0.8 and words_topic < 0.3
    ref_fw, ref_topic, m = _scores(TOPIC_REFERENCE)
    assert ref_fw == pytest.approx(0.0, abs=1e-12) and ref_topic == pytest.approx(1.0)
    assert m.fit_summary["n_excluded_mfw"] == 150 and set(m.excluded) <= set(FUNCTION)


@settings(max_examples=20, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from([f"w{i}" for i in range(40)]), min_size=1, max_size=30).map(" ".join),
        min_size=2,
        max_size=8,
        unique=True,  # a baseline is fitted on distinct texts
    ),
    st.integers(1, 10),
)
def test_excluded_words_are_the_most_frequent_and_never_weighted(texts, n):
    from collections import Counter

    from mteb_contrastive.baselines.sparse import TfidfBaseline, most_frequent_words

    counts = Counter(w for t in texts for w in t.split())
    top = most_frequent_words(texts, n)
    assert len(top) == min(n, len(counts))
    assert min(counts[w] for w in top) >= max((c for w, c in counts.items() if w not in top), default=0)
    m = TfidfBaseline("x", kind="words", exclude_mfw=n)
    m.fit(texts)
    assert len(m.excluded) == min(n, len(counts) // 2) and m.excluded == top[: len(m.excluded)]
    assert not set(m.vectorizer.vocabulary_) & set(m.excluded) and m.vectorizer.vocabulary_
