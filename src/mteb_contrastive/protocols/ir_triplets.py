"""Paragraph Vector IR triplets (Le & Mikolov 2014, "Distributed Representations of Sentences
and Documents", section 3.3): the triplet protocol with anchor = p1, positive = p2, negative = p3.

A triplet is an error when ``d(p1, p2) >= d(p1, p3)``; with a similarity ``sim = -d`` that is
"not ``sim(p1, p2) > sim(p1, p3)``" -- the strict rule of
:class:`~mteb_contrastive.protocols.triplet_classification.AbsTaskTripletClassification`, so

    error_rate = 100 * (1 - accuracy)        (percent, lower is better)

The distance is the model's own similarity (its mteb ``similarity_fn_name``: cosine for
sentence-transformers models and for this project's baselines). Scores: ``accuracy`` (main
score, higher is better, so that mteb's readers are not confused), ``error_rate`` (percent),
and the triplet protocol's counts. Trained baselines (Doc2Vec, word vectors) receive the texts of
the collection's ``train`` split through the fit hook (:mod:`mteb_contrastive.protocols.fitting`);
they never see a test query's triplets.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from mteb_contrastive.protocols.triplet_classification import AbsTaskTripletClassification, unique_texts


def error_rate(accuracy: float) -> float:
    """Error rate in percent from the strict-rule triplet accuracy: ``100 * (1 - accuracy)``."""
    return float("nan") if math.isnan(accuracy) else 100.0 * (1.0 - accuracy)


class AbsTaskIRTriplets(AbsTaskTripletClassification):
    """IR triplets; subclasses implement :meth:`load_triplets` (and :meth:`load_train_rows`)."""

    #: the protocol's row in :data:`mteb_contrastive.families.PROTOCOLS` (family, tie rule, resampling unit)
    protocol: ClassVar[str] = "ir-triplets"

    abstask_prompt = "Represent the passage for retrieving relevant passages."
    item_group_by = "ir_query_id (the query whose relevant documents p1 and p2 are)"

    def item_group(self, row: dict[str, Any]) -> str:
        """Group id of a triplet for the cluster bootstrap: its IR query (up to ``max_per_query``
        triplets share a query and its relevant documents)."""
        return str(row["ir_query_id"])

    def load_train_rows(self, hf_subset: str) -> list[dict[str, Any]] | None:
        """Rows of the train split (for baselines that train); None when there is none."""
        return None

    def fit_train_texts(self, hf_subset: str, split: str) -> list[str] | None:
        if split == "train":
            return None
        rows = self.load_train_rows(hf_subset)
        if not rows:
            return None
        texts, _ = unique_texts(rows, (self.anchor_field, self.positive_field, self.negative_field))
        return texts

    def _evaluate_subset(self, model: Any, data_split: list[dict[str, Any]], **kwargs: Any) -> dict[str, float]:
        scores = super()._evaluate_subset(model, data_split, **kwargs)
        scores["error_rate"] = error_rate(scores["accuracy"])
        return scores
