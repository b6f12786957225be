"""Triplet classification: is the anchor closer to the positive than to the negative?

Protocol of HALvest-Contrastive (Kulumba et al., arXiv 2407.20595): accuracy over
(anchor, same-author positive, different-author negative) triplets, strict ``>`` (ties are
errors), cosine similarity for neural models (the model's own similarity function, from its
mteb metadata). Two subsets of rows are scored:

* **base** -- rows with ``query_halid != pos_halid`` (the positive comes from another document;
  ``hard_only`` filter of the authors' ``bm25_experiments.py``). Main score.
* **unrestricted** -- all rows.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

import numpy as np

from mteb.abstasks.abstask import AbsTask
from mteb.timing import TimingStack

from mteb_contrastive.metrics.triplets import triplet_accuracy
from mteb_contrastive.protocols.fitting import fit_if_needed, fit_summary
from mteb_contrastive.protocols.triplet_source import TripletSource

logger = logging.getLogger(__name__)


def unique_texts(rows: list[dict[str, Any]], fields: tuple[str, ...]) -> tuple[list[str], dict[str, int]]:
    """Distinct texts of ``fields`` over ``rows`` in first-seen order, and text -> position."""
    index: dict[str, int] = {}
    for row in rows:
        for f in fields:
            index.setdefault(row[f], len(index))
    return list(index), index


def encode_texts(model: Any, texts: list[str], task: AbsTask, *, hf_split: str, hf_subset: str, encode_kwargs: dict, num_proc: int | None = None) -> np.ndarray:
    """Encode ``texts`` once with an mteb encoder through mteb's own dataloader.

    Returns:
        float array of shape (len(texts), dim).
    """
    from datasets import Dataset
    from mteb._create_dataloaders import create_dataloader

    loader = create_dataloader(
        Dataset.from_dict({"text": texts}),
        task_metadata=task.metadata,
        input_column="text",
        num_proc=num_proc,
        **encode_kwargs,
    )
    emb = model.encode(loader, task_metadata=task.metadata, hf_split=hf_split, hf_subset=hf_subset, **encode_kwargs)
    return np.asarray(emb.detach().cpu() if hasattr(emb, "detach") else emb)


class AbsTaskTripletClassification(TripletSource, AbsTask):
    """Triplet accuracy task over rows with ``query``/``positive``/``negative`` texts.

    ``self.dataset[hf_subset][split]`` is a list of triplet rows (HALvest triplet schema, see
    :mod:`mteb_contrastive.data.halvest`). Each distinct text of a subset is encoded once,
    however many triplets it appears in.

    Scores: ``accuracy`` (base rows), ``accuracy_unrestricted`` (all rows), ``n_triplets_base``,
    ``n_triplets``, ``n_unique_texts``, ``n_ties`` (base rows whose two similarities are equal).
    """

    abstask_prompt = "Represent the writing style of the text."
    anchor_field: ClassVar[str] = "query"
    positive_field: ClassVar[str] = "positive"
    negative_field: ClassVar[str] = "negative"

    def fit_train_texts(self, hf_subset: str, split: str) -> list[str] | None:
        """Texts a baseline may train on when ``split`` is evaluated (a train split's texts); None: no train part."""
        return None

    def _evaluate_subset(self, model: Any, data_split: list[dict[str, Any]], *, hf_split: str, hf_subset: str, encode_kwargs: dict, prediction_folder: Any = None, num_proc: int | None = None, timer: Any = None, **kwargs: Any) -> dict[str, float]:
        from mteb.models.models_protocols import EncoderProtocol

        from mteb_contrastive.protocols import cross_encoder_scoring as ces

        cross = ces.is_cross_encoder(model)  # a cross-encoder scores (anchor, candidate) pairs directly
        if not cross and not isinstance(model, EncoderProtocol):
            raise TypeError(
                f"{self.metadata.name} scores embeddings or pairs: it needs an encoder or a cross-encoder, got {type(model).__name__}"
            )
        fields = (self.anchor_field, self.positive_field, self.negative_field)
        timer = timer or TimingStack()
        texts, index = unique_texts(data_split, fields)
        candidates, _ = unique_texts(data_split, (self.positive_field, self.negative_field))
        fitted = fit_if_needed(model, texts, self.fit_train_texts(hf_subset, hf_split), candidate_texts=candidates)
        if cross:
            with timer("Scoring", split=hf_split, subset=hf_subset):
                anchors = [r[self.anchor_field] for r in data_split] * 2
                others = [r[self.positive_field] for r in data_split] + [r[self.negative_field] for r in data_split]
                s = ces.cross_encoder_scores(model, anchors, others, self, hf_split=hf_split, hf_subset=hf_subset, encode_kwargs=encode_kwargs, num_proc=num_proc)
                sim_pos, sim_neg = s[: len(data_split)], s[len(data_split) :]
        else:
            with timer("Encoding texts", split=hf_split, subset=hf_subset):
                emb = encode_texts(model, texts, self, hf_split=hf_split, hf_subset=hf_subset, encode_kwargs=encode_kwargs, num_proc=num_proc)
            with timer("Scoring", split=hf_split, subset=hf_subset):
                sim_pos, sim_neg = self._similarities(model, emb, index, data_split)
        base = np.array([str(r["query_halid"]) != str(r["pos_halid"]) for r in data_split], dtype=bool)
        scores = {
            "accuracy": triplet_accuracy(sim_pos[base], sim_neg[base]),
            "accuracy_unrestricted": triplet_accuracy(sim_pos, sim_neg),
            "n_triplets_base": int(base.sum()),
            "n_triplets": len(data_split),
            "n_unique_texts": len(texts),
            "n_ties": int(np.sum(sim_pos[base] == sim_neg[base])),
        }
        if fitted:
            scores.update(fit_summary(model))
        scores.update(self.split_counts(hf_subset, hf_split))
        return scores

    def _similarities(self, model: Any, emb: np.ndarray, index: dict[str, int], rows: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
        """Model similarity (its mteb ``similarity_pairwise``: cosine for sentence-transformers)."""
        import torch

        a = [index[r[self.anchor_field]] for r in rows]
        p = [index[r[self.positive_field]] for r in rows]
        n = [index[r[self.negative_field]] for r in rows]
        e = torch.as_tensor(emb, dtype=torch.float32)
        sim_pos = np.asarray(model.similarity_pairwise(e[a], e[p]), dtype=np.float64)
        sim_neg = np.asarray(model.similarity_pairwise(e[a], e[n]), dtype=np.float64)
        return sim_pos.ravel(), sim_neg.ravel()

    def _calculate_descriptive_statistics_from_split(self, split: str, hf_subset: str | None = None, compute_overall: bool = False, num_proc: int | None = None) -> dict[str, Any]:
        rows = [r for s in ([hf_subset] if hf_subset else self.hf_subsets) for r in self.dataset[s][split]]
        texts, _ = unique_texts(rows, (self.anchor_field, self.positive_field, self.negative_field))
        return {"num_samples": len(rows), "unique_texts": len(texts)}
