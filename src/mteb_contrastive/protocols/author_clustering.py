"""Author clustering: the texts of an attribution folder clustered by author, scored with mteb's clustering task.

Items: the known texts of the authors with two or more (a one-text author is a singleton cluster
any method gets right), one vector per text, made as the attribution protocol makes it
(:func:`mteb_contrastive.protocols.attribution.text_vectors`: the normalised mean of the text's
normalised chunk embeddings). The clustering and its score are **mteb's own**: the vectors go,
through a small encoder that hands back the precomputed vector of each text, to
``AbsTaskClusteringLegacy._evaluate_subset`` -- ``ClusteringEvaluator`` (``MiniBatchKMeans`` with K =
the number of authors, ``n_init="auto"``, ``random_state`` 42, mteb 2.26
``mteb/_evaluators/clustering_evaluator.py`` L86-93) and ``v_measure_score`` (``clustering_legacy.py``
``_compute_metrics``). STEB's clustering score is the same V-measure of a K-means on one vector per
item (``steb/metrics.py`` ~L84-120), without a chance level.

Scores: ``v_measure`` (main), ``v_measure_std`` (0: one clustering), ``n_texts``, ``n_authors``
and two exact chance levels (:func:`mteb_contrastive.metrics.clustering.expected_v_measure`):

* ``random_v_measure`` -- a random assignment of the texts **with the same cluster sizes as the
  model's clustering** (the permutation model of the adjusted mutual information, Vinh et al. 2010):
  what those cluster sizes give for free; the chance level shown beside ``v_measure``;
* ``random_v_measure_author_sizes`` -- a random partition into groups as large as the authors'
  (model-independent). It is higher whenever K-means makes uneven clusters (a balanced partition
  shares more information by chance): on the ELTeC English run (docs/attribution.md) MiniLM's K-means
  made one cluster of 16 texts, chance 0.48 with its sizes against 0.60 with the authors'.

Why texts and not chunks: chunks of one novel share its characters' names and places, so a chunk
clustering would mostly recover novels, not authors. Why a task of its own: its score is mteb's
clustering score (another task type, another main score), and it needs vectors -- a fitted baseline
that only scores text pairs gets ``v_measure`` NaN and ``v_measure_withheld`` says so.
"""

from __future__ import annotations

import abc
import logging
from typing import Any, ClassVar

import numpy as np
from mteb.abstasks.clustering_legacy import AbsTaskClusteringLegacy

from mteb_contrastive.compat import save_task_predictions
from mteb_contrastive.metrics.clustering import cluster_sizes, expected_v_measure
from mteb_contrastive.protocols.attribution import KNOWN, QUESTIONED, AbsTaskAttribution, text_vectors
from mteb_contrastive.protocols.fitting import is_pair_scorer

logger = logging.getLogger(__name__)


class PrecomputedVectors:
    """An mteb encoder (``EncoderProtocol``) whose "texts" are item ids and whose embedding of each id is
    a given vector: how mteb's clustering evaluator receives the per-text vectors."""

    def __init__(self, vectors: dict[str, np.ndarray], meta: Any) -> None:
        self.vectors = vectors
        self.mteb_model_meta = meta
        self.assignment: list[int] = []

    def encode(self, inputs: Any, **kwargs: Any) -> np.ndarray:
        return np.stack([self.vectors[t] for batch in inputs for t in batch["text"]])

    def similarity(self, a: Any, b: Any) -> Any:
        from mteb.similarity_functions import cos_sim

        return cos_sim(a, b)

    def similarity_pairwise(self, a: Any, b: Any) -> Any:
        from mteb.similarity_functions import pairwise_cos_sim

        return pairwise_cos_sim(a, b)


class RecordingClusteringEvaluator(AbsTaskClusteringLegacy.evaluator):
    """mteb's clustering evaluator, unchanged, that also leaves its cluster assignment on the model it was
    given (a :class:`PrecomputedVectors`), for the predictions file."""

    def __call__(self, model: Any, **kwargs: Any) -> list[int]:
        assignment = super().__call__(model, **kwargs)
        model.assignment = [int(c) for c in assignment]
        return assignment


class AbsTaskAuthorClustering(AbsTaskClusteringLegacy):
    """Author clustering of an attribution folder's texts (module docstring); subclasses implement
    ``load_texts`` (the folder's source)."""

    #: the protocol's row in :data:`mteb_contrastive.families.PROTOCOLS`
    protocol: ClassVar[str] = "author-clustering"
    abstask_prompt = "Represent the writing style of the text."
    #: fitted baselines reach :meth:`_evaluate_subset` (they get a withheld score, not an mteb error)
    _support_search: ClassVar[bool] = True
    evaluator = RecordingClusteringEvaluator

    load_data = AbsTaskAttribution.load_data

    @abc.abstractmethod
    def load_texts(self) -> list[dict[str, Any]]:
        """The folder's texts (rows of ``texts.jsonl``); each task's data source supplies them."""

    def _calculate_descriptive_statistics_from_split(
        self, split: str, hf_subset: str | None = None, compute_overall: bool = False, num_proc: int | None = None
    ) -> dict[str, Any]:
        items = clustered_texts(self.dataset[hf_subset or self.hf_subsets[0]][split])
        return {"num_samples": len(items), "authors": len({t["author"] for t in items})}

    def _evaluate_subset(
        self,
        model: Any,
        data_split: Any,
        *,
        hf_split: str,
        hf_subset: str,
        encode_kwargs: dict,
        prediction_folder: Any = None,
        num_proc: int | None = None,
        timer: Any = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        from datasets import Dataset
        from mteb.timing import TimingStack

        items = clustered_texts(list(data_split))
        authors = sorted({t["author"] for t in items})
        labels = [authors.index(t["author"]) for t in items]
        sizes = cluster_sizes(labels)
        counts = {"n_texts": len(items), "n_authors": len(authors)}
        counts["random_v_measure_author_sizes"] = expected_v_measure(sizes, sizes)
        if is_pair_scorer(model):
            reason = f"{type(model).__name__} scores text pairs and gives no vectors for K-means"
            return {"v_measure": float("nan"), "v_measure_withheld": reason, **counts}  # no clustering: no chance
        vectors = text_vectors(
            model, self, items, hf_split=hf_split, hf_subset=hf_subset, encode_kwargs=encode_kwargs, num_proc=num_proc
        )
        ids = [t["id"] for t in items]
        adapter = PrecomputedVectors(dict(zip(ids, vectors)), model.mteb_model_meta)
        scores = super()._evaluate_subset(
            adapter,
            Dataset.from_dict({"sentences": [ids], "labels": [labels]}),
            encode_kwargs=encode_kwargs,
            hf_split=hf_split,
            hf_subset=hf_subset,
            prediction_folder=None,
            num_proc=num_proc,
            timer=timer or TimingStack(),
        )
        out = {
            "v_measure": float(scores["v_measure"]),
            "v_measure_std": float(scores["v_measure_std"]),
            "random_v_measure": expected_v_measure(sizes, cluster_sizes(adapter.assignment)),
            **counts,
        }
        if prediction_folder:
            save_task_predictions(
                self,
                {"id": ids, "author": [authors[c] for c in labels], "cluster": adapter.assignment},
                model,
                prediction_folder,
                hf_split=hf_split,
                hf_subset=hf_subset,
            )
        return out


def clustered_texts(texts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The known texts of authors with two or more known texts, in folder order."""
    n: dict[str, int] = {}
    for t in texts:
        if t["role"] == KNOWN:
            n[t["author"]] = n.get(t["author"], 0) + 1
    return [t for t in texts if t["role"] != QUESTIONED and n.get(t["author"], 0) >= 2]
