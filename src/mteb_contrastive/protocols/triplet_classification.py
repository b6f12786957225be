"""Triplet classification: is the anchor closer to the positive than to the negative?

Protocol of HALvest-Contrastive (Kulumba et al., arXiv 2407.20595): accuracy over
(anchor, same-author positive, different-author negative) triplets, strict ``>`` (ties are
errors), cosine similarity for neural models (the model's own similarity function, from its
mteb metadata). Two sets of rows are scored:

* ``accuracy`` -- all rows: the authors' test accuracy (``(pos_scores > neg_scores).float().mean()``
  over every test row, ``on_test_epoch_end`` in ``modules/modeling_retriever.py`` L331-333). Main
  score. The paper's "unrestricted" (topic-rich) rows: all rows of a ``base-k`` config, same-document
  positives included (``contrastive_experiments.py`` L85-90, "Experiment A", trains on them unfiltered).
* ``accuracy_cross_document`` -- rows with ``query_halid != pos_halid`` (the positive comes from
  another document), with ``n_triplets_cross_document``: the paper's "base" (topic-decoupled) rows,
  the filter of ``bm25_experiments.py`` L23-26 (``hard_only``), ``contrastive_experiments.py``
  L70-73 and L135-137 ("Topic-Decoupled"), whose rows ``jaccard_experiments.py`` L66-69 and L106-107
  plot as "Base data" (``docs/halvest.md``).
* ``accuracy_topic_controlled`` -- only in folders built with a topic field: the rows with
  ``topic_controlled`` true (positive on another topic than the anchor, negative on the same topic;
  :mod:`mteb_contrastive.data.halvest_builder`), with ``n_triplets_topic_controlled``. Those rows
  are a sampling of their own: every other score (``accuracy`` too) is computed on the other rows,
  the usual triplets (content independence, :mod:`mteb_contrastive.metrics.content`).

Prompt types: anchors are encoded as queries (``PromptType.query``) and positives/negatives as
documents (``PromptType.document``), as in the retrieval task and in sentence-transformers'
``TripletEvaluator`` (``encode_query`` for anchors, ``encode_document`` for the others), so an
asymmetric model sees each text in the same role in both tasks. A text that is both an anchor and
a candidate is encoded once in each role.

Pairs schema (``almanach/HALvest-Contrastive``): triplets exist only where rows share a query
span (:func:`mteb_contrastive.data.halvest.pairs_to_triplets`); they are scored, with their count,
only when at least half of the positive rows join
(:func:`~mteb_contrastive.data.halvest.join_verdict`). Otherwise the split's scores are NaN and
``triplet_score_withheld`` says why.

Per-item output (for the release report's paired comparisons): when mteb is given a prediction
folder (``mteb run --prediction-folder DIR``), ``<DIR>/<task>_predictions.json`` holds under
``[subset][split]`` the contract of :func:`mteb_contrastive.report.reader.per_item_scores`::

    {"per_item": {"name": "accuracy", "ids": [...], "values": [0/1, ...], "groups": [...], "group_by": "..."}}

one value per triplet (1 when ``sim(a, p) > sim(a, n)``; their mean is ``accuracy``), the ids
from the triplet's texts (:func:`triplet_item_ids`: the same for every model on the same data),
and a group id per triplet (:meth:`AbsTaskTripletClassification.item_group`: the anchor's first
author here, the IR query for IR triplets): triplets of one group are not independent, so the
comparison resamples groups (cluster bootstrap, :mod:`mteb_contrastive.report.compare`).
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

import numpy as np
from mteb.abstasks.abstask import AbsTask
from mteb.timing import TimingStack

from mteb_contrastive.compat import save_task_predictions
from mteb_contrastive.data.halvest import join_verdict, pairs_to_triplets
from mteb_contrastive.identity import nfc
from mteb_contrastive.metrics.triplets import triplet_accuracy
from mteb_contrastive.protocols import scoring
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


def triplet_item_ids(rows: list[dict[str, Any]], fields: tuple[str, str, str]) -> list[str]:
    """One id per triplet row, from its content: the first 16 hex digits of the SHA-1 of the NFC
    anchor, positive and negative texts (joined by U+001F); the k-th repeat of a triplet gets
    ``#k`` (k >= 2). Same data -> same ids for every model (identity is content)."""
    import hashlib

    seen: dict[str, int] = {}
    out = []
    for r in rows:
        h = hashlib.sha1("\x1f".join(nfc(str(r[f])) for f in fields).encode("utf-8")).hexdigest()[:16]
        seen[h] = seen.get(h, 0) + 1
        out.append(h if seen[h] == 1 else f"{h}#{seen[h]}")
    return out


class AbsTaskTripletClassification(TripletSource, AbsTask):
    """Triplet accuracy task over rows with ``query``/``positive``/``negative`` texts.

    ``self.dataset[hf_subset][split]`` is a list of triplet rows (HALvest triplet schema, see
    :mod:`mteb_contrastive.data.halvest`). Each distinct text of a subset is encoded once,
    however many triplets it appears in.

    Scores: ``accuracy`` (all rows), ``accuracy_cross_document`` (rows whose positive is from
    another document), ``n_triplets``, ``n_triplets_cross_document``, ``n_unique_texts``,
    ``n_ties`` (rows whose two similarities are equal), ``n_ties_cross_document``; in a folder built
    with a topic field, ``accuracy_topic_controlled``, ``n_triplets_topic_controlled`` and
    ``n_ties_topic_controlled`` (those rows apart, see the module docstring).
    """

    #: the protocol's row in :data:`mteb_contrastive.families.PROTOCOLS` (family, tie rule, resampling unit)
    protocol: ClassVar[str] = "author-triplets"

    abstask_prompt = "Represent the writing style of the text."
    #: mteb's gate for non-encoder models: fitted baselines (pair scorers) are accepted here
    _support_search: ClassVar[bool] = True
    anchor_field: ClassVar[str] = "query"
    positive_field: ClassVar[str] = "positive"
    negative_field: ClassVar[str] = "negative"

    #: what :meth:`item_group` groups by (written beside the groups in the per-item file)
    item_group_by: ClassVar[str] = "anchor first author (query_authorids[0]; query_halid when no author)"

    def fit_train_texts(self, hf_subset: str, split: str) -> list[str] | None:
        """Texts a baseline may train on when ``split`` is evaluated (a train split's texts); None: no train part."""
        return None

    def item_group(self, row: dict[str, Any]) -> str:
        """Group id of a triplet for the cluster bootstrap: the anchor's first author (the
        triplets of one author share their anchor's style), else the anchor document (``query_halid``)."""
        authors = row.get("query_authorids")
        authors = [] if authors is None else list(authors)
        return nfc(str(authors[0])) if authors else "doc:" + nfc(str(row.get("query_halid", "")))

    def prepare_split(self, rows: list[dict[str, Any]], info: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """Triplet rows as they are; pair rows joined (:func:`~mteb_contrastive.data.halvest.pairs_to_triplets`)
        and withheld, with the reason, when under half of the positive rows join."""
        if info.get("schema") != "pairs":
            return rows, {}
        triplets, stats = pairs_to_triplets(rows, info.get("config", "pairs"))
        counts: dict[str, Any] = {**stats.as_dict(), "triplet_join_share": stats.join_share}
        reason = join_verdict(stats)
        if reason is not None:
            logger.warning("%s %s: %s", self.metadata.name, info.get("config"), reason)
            counts["triplet_score_withheld"] = reason
            return [], counts
        return triplets, counts

    def _evaluate_subset(
        self,
        model: Any,
        data_split: list[dict[str, Any]],
        *,
        hf_split: str,
        hf_subset: str,
        encode_kwargs: dict,
        prediction_folder: Any = None,
        num_proc: int | None = None,
        timer: Any = None,
        **kwargs: Any,
    ) -> dict[str, Any]:

        kind = scoring.scorer_kind(model, self.metadata.name)  # a cross-encoder scores (anchor, candidate) pairs
        counts = self.split_counts(hf_subset, hf_split)
        source = {
            "dataset_path": str(self.metadata.dataset["path"]),
            "dataset_revision": str(self.metadata.dataset.get("revision")),
        }
        if "triplet_score_withheld" in counts:
            nan = float("nan")
            return {"accuracy": nan, "accuracy_cross_document": nan, **counts, **source}
        fields = (self.anchor_field, self.positive_field, self.negative_field)
        timer = timer or TimingStack()
        texts, _ = unique_texts(data_split, fields)
        candidates, c_index = unique_texts(data_split, (self.positive_field, self.negative_field))
        train_texts = self.fit_train_texts(hf_subset, hf_split)
        if kind == scoring.PAIR_SCORER:  # a fitted baseline: fit on the split's texts, score the text pairs
            model.fit(texts, train_texts=train_texts, candidate_texts=candidates)
            fitted = True
        elif kind == scoring.ENCODER:
            fitted = fit_if_needed(model, texts, train_texts, candidate_texts=candidates)
        else:
            fitted = False
        with timer("Scoring", split=hf_split, subset=hf_subset):
            anchor_col = [r[self.anchor_field] for r in data_split]
            cands = [r[self.positive_field] for r in data_split] + [r[self.negative_field] for r in data_split]
            both = scoring.pair_scores(  # one call: each distinct text encoded / represented once
                model,
                kind,
                anchor_col + anchor_col,
                cands,
                self,
                hf_split=hf_split,
                hf_subset=hf_subset,
                encode_kwargs=encode_kwargs,
                num_proc=num_proc,
            )
            sim_pos, sim_neg = both[: len(data_split)], both[len(data_split) :]
        controlled = np.array([bool(r.get("topic_controlled")) for r in data_split], dtype=bool)
        topic_rows = any("topic_controlled" in r for r in data_split)
        all_rows = data_split
        if controlled.any():  # the topic-controlled rows are scored apart; the rest are the usual triplets
            tc_pos, tc_neg = sim_pos[controlled], sim_neg[controlled]
            data_split = [r for r, c in zip(data_split, controlled) if not c]
            sim_pos, sim_neg = sim_pos[~controlled], sim_neg[~controlled]
        cross = np.array(
            [nfc(str(r["query_halid"])) != nfc(str(r["pos_halid"])) for r in data_split], dtype=bool
        )  # ids compared in NFC
        scores = {
            "accuracy": triplet_accuracy(sim_pos, sim_neg),
            "accuracy_cross_document": triplet_accuracy(sim_pos[cross], sim_neg[cross]),
            "n_triplets": len(data_split),
            "n_triplets_cross_document": int(cross.sum()),
            "n_unique_texts": len(texts),
            "n_ties": int(np.sum(sim_pos == sim_neg)),
            "n_ties_cross_document": int(np.sum(sim_pos[cross] == sim_neg[cross])),
        }
        if topic_rows:
            scores["n_triplets_topic_controlled"] = int(controlled.sum())
            if controlled.any():
                scores["accuracy_topic_controlled"] = triplet_accuracy(tc_pos, tc_neg)
                scores["n_ties_topic_controlled"] = int(np.sum(tc_pos == tc_neg))
        if fitted:
            scores.update(fit_summary(model))
        scores.update(counts)
        scores.update(source)
        if prediction_folder:
            controlled_rows = None
            if controlled.any():
                controlled_rows = ([r for r, c in zip(all_rows, controlled) if c], tc_pos, tc_neg)
            self._save_per_item(
                model,
                data_split,
                sim_pos,
                sim_neg,
                prediction_folder,
                hf_split=hf_split,
                hf_subset=hf_subset,
                controlled=controlled_rows,
            )
        return scores

    def per_item(self, rows: list[dict[str, Any]], sim_pos: np.ndarray, sim_neg: np.ndarray) -> dict[str, Any]:
        """The per-item contract of :func:`mteb_contrastive.report.reader.per_item_scores` for ``rows``:
        ``values[i]`` = 1.0 when ``sim_pos[i] > sim_neg[i]`` (strict, as :func:`triplet_accuracy`) else 0.0,
        so ``mean(values) == accuracy``; ids from :func:`triplet_item_ids`, groups from :meth:`item_group`."""
        fields = (self.anchor_field, self.positive_field, self.negative_field)
        return {
            "name": "accuracy",
            "ids": triplet_item_ids(rows, fields),
            "values": (np.asarray(sim_pos, dtype=np.float64) > np.asarray(sim_neg, dtype=np.float64))
            .astype(float)
            .tolist(),
            "groups": [self.item_group(r) for r in rows],
            "group_by": self.item_group_by,
        }

    def _save_per_item(
        self,
        model: Any,
        rows: list[dict[str, Any]],
        sim_pos: np.ndarray,
        sim_neg: np.ndarray,
        prediction_folder: Any,
        *,
        hf_split: str,
        hf_subset: str,
        controlled: tuple[list[dict[str, Any]], np.ndarray, np.ndarray] | None = None,
    ) -> None:
        """Write :meth:`per_item` into mteb's prediction file (``compat.save_task_predictions``); with
        ``controlled`` (the topic-controlled rows and their two similarities), their own per-item record
        under ``per_item_topic_controlled``, named ``accuracy_topic_controlled`` (the report compares
        models on them apart: :func:`mteb_contrastive.report.reader.per_item_scores`)."""
        record = {"per_item": self.per_item(rows, sim_pos, sim_neg)}
        if controlled is not None:
            record["per_item_topic_controlled"] = {
                **self.per_item(*controlled),
                "name": "accuracy_topic_controlled",
            }
        save_task_predictions(
            self,
            record,
            model,
            prediction_folder,
            hf_split=hf_split,
            hf_subset=hf_subset,
        )

    def _calculate_descriptive_statistics_from_split(
        self, split: str, hf_subset: str | None = None, compute_overall: bool = False, num_proc: int | None = None
    ) -> dict[str, Any]:
        rows = [r for s in ([hf_subset] if hf_subset else self.hf_subsets) for r in self.dataset[s][split]]
        texts, _ = unique_texts(rows, (self.anchor_field, self.positive_field, self.negative_field))
        return {"num_samples": len(rows), "unique_texts": len(texts)}
