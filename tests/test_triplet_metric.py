import numpy as np
import pytest

from mteb_contrastive.metrics.triplets import triplet_accuracy


def test_accuracy_by_hand():
    # 3 of 4 anchors strictly closer to their positive
    assert triplet_accuracy([0.9, 0.5, 0.2, 0.7], [0.1, 0.4, 0.3, 0.6]) == 0.75


def test_ties_count_as_errors():
    # paper rule: (pos > neg), strict; two ties out of three -> 1/3
    assert triplet_accuracy([0.5, 0.5, 0.9], [0.5, 0.5, 0.1]) == pytest.approx(1 / 3)


def test_nan_and_shape_errors():
    with pytest.raises(ValueError, match="NaN"):
        triplet_accuracy([np.nan, 0.1], [0.2, 0.3])
    with pytest.raises(ValueError, match="shape"):
        triplet_accuracy([0.1, 0.2], [0.1])
    assert np.isnan(triplet_accuracy([], []))
