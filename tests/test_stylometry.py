"""Burrows' Delta, Cosine Delta and the PPMd compression-based cosine: by hand and against pyppmd."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pyppmd
import pytest

from mteb_contrastive.baselines import BASELINES, baseline_revision
from mteb_contrastive.baselines.base import NotFittedError
from mteb_contrastive.baselines.compression import PPMdCBC
from mteb_contrastive.baselines.revision import LIBRARIES
from mteb_contrastive.baselines.stylometry import BurrowsDelta, CosineDelta
from mteb_contrastive.baselines.table import CHARACTER_LEVEL, TOPIC_REFERENCE

T1, T2, T3 = "a a b", "a b c", "c c c c"


def _hand_z():
    """z-scores of T1..T3 on the 2 most frequent words (c: 5, a: 3; b: 2 left out), by hand.

    Relative frequencies (c, a): T1 (0, 2/3), T2 (1/3, 1/3), T3 (1, 0); means (4/9, 1/3);
    population standard deviations sqrt(14)/9 and sqrt(6)/9.
    """
    s14, s6 = math.sqrt(14), math.sqrt(6)
    return np.array([[-4 / s14, 3 / s6], [-1 / s14, 0.0], [5 / s14, -3 / s6]])


def test_burrows_delta_by_hand():
    m = BurrowsDelta(n_mfw=2)
    m.fit([T3, T1, T2])
    assert [m.vectorizer.get_feature_names_out()[j] for j in m.columns] == ["c", "a"]
    np.testing.assert_allclose(m.z_scores([T1, T2, T3]), _hand_z(), atol=1e-12)
    s14, s6 = math.sqrt(14), math.sqrt(6)
    delta_12 = (3 / s14 + 3 / s6) / 2  # mean |z diff|
    delta_13 = (9 / s14 + 6 / s6) / 2
    np.testing.assert_allclose(m.score_pairs([T1, T1, T2], [T2, T3, T2]), [-delta_12, -delta_13, 0.0], atol=1e-12)
    assert m.fit_summary == {
        "fit_n_texts": 3,
        "fit_on_evaluated_texts": 1,
        "fit_on_train_split": 0,
        "vocabulary_size": 3,
        "n_mfw": 2,
    }


def test_delta_ties_of_frequency_go_to_the_word_and_every_script_is_tokenised():
    m = BurrowsDelta(n_mfw=1)
    m.fit(["zeta alpha", "alpha zeta"])  # both words twice: alpha first
    assert m.vectorizer.get_feature_names_out()[m.columns[0]] == "alpha"
    m = BurrowsDelta(n_mfw=3)
    m.fit(["Пре срца, срце.", "Péter és Pál", "北京大学的学生"])
    words = set(m.vectorizer.get_feature_names_out())
    assert {"срца", "срце", "és", "péter", "北京大学", "学生"} <= words


def test_cosine_delta_is_the_cosine_of_the_z_scores():
    m = CosineDelta(n_mfw=2)
    m.fit([T1, T2, T3])
    z = _hand_z()
    cos = z[0] @ z[2] / (np.linalg.norm(z[0]) * np.linalg.norm(z[2]))
    assert m.score_pairs([T1], [T3])[0] == pytest.approx(cos, abs=1e-12)


def test_delta_search_ranks_by_minus_delta():
    from datasets import Dataset

    m = BurrowsDelta(n_mfw=2)
    m.index(Dataset.from_list([{"id": f"d{i}", "text": t} for i, t in enumerate([T1, T2, T3])]))
    res = m.search(Dataset.from_list([{"id": "q", "text": T1}]), top_k=3)["q"]
    assert list(res) == ["d0", "d1", "d2"]  # itself (Delta 0), then Delta 1.27.., then 3.63..
    assert res["d1"] == pytest.approx(m.score_pairs([T1], [T2])[0])


X = "The cat sat on the mat, and the cat was glad. " * 4
Y = "A dog ran in the fog; the dog was not glad at all. " * 4


def _c(text: str) -> int:
    return len(pyppmd.compress(text.encode("utf-8"), max_order=6, mem_size=16 << 20))


def test_compression_cosine_against_pyppmd():
    m = PPMdCBC()
    m.fit([X, Y])
    a, b = sorted((X, Y), key=lambda t: hashlib.sha256(t.encode("utf-8")).digest())
    expected = (_c(X) + _c(Y) - _c(a + b)) / math.sqrt(_c(X) * _c(Y))
    s = m.score_pairs([X, Y, X], [Y, X, X])
    assert s[0] == pytest.approx(expected, abs=1e-15) and s[1] == s[0]  # symmetric: canonical order
    assert s[2] == pytest.approx((2 * _c(X) - _c(X + X)) / _c(X)) and s[2] > s[0]
    assert m.fit_summary["fit_n_texts"] == 2


def test_compression_search_and_not_fitted():
    from datasets import Dataset

    with pytest.raises(NotFittedError):
        PPMdCBC().score_pairs([X], [Y])
    m = PPMdCBC()
    m.index(Dataset.from_list([{"id": "y", "text": Y}, {"id": "x2", "text": X + "Yes."}]))
    res = m.search(Dataset.from_list([{"id": "q", "text": X}]), top_k=2)["q"]
    assert list(res) == ["x2", "y"] and res["y"] == pytest.approx(m.cbc(X, Y))


def test_rows_revisions_and_libraries():
    for name, cls in (
        ("mteb-contrastive/burrows-delta", "stylometry.BurrowsDelta"),
        ("mteb-contrastive/cosine-delta", "stylometry.CosineDelta"),
        ("mteb-contrastive/ppmd-cbc", "compression.PPMdCBC"),
    ):
        assert BASELINES[name][0] == cls and cls in LIBRARIES
        assert baseline_revision(name).startswith("probe-")
    assert "pyppmd" in LIBRARIES["compression.PPMdCBC"]
    assert CHARACTER_LEVEL == {"mteb-contrastive/tfidf-char3", "mteb-contrastive/ppmd-cbc"}
    assert TOPIC_REFERENCE in BASELINES
