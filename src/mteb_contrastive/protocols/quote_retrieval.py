"""Quote recommendation as retrieval (QuoteR, Qi et al., ACL 2022, arXiv 2202.13145).

Protocol:

* data: a QuoteR line file (:mod:`mteb_contrastive.data.quoter`), split by line order (official
  boundaries) or by proportions after the fixed-seed shuffle (shared files);
* candidate pool = every distinct quote of the whole file; queries = the test lines' contexts
  around a mask marker; one relevant candidate per query (its gold quote);
* metrics (:mod:`mteb_contrastive.metrics.ranking`), over the full ranking of the pool, each
  under three tie rules (a gold tied with ``t - 1`` other candidates and below ``h`` has a rank in
  ``{h+1..h+t}``): ``<metric>_tie_expected`` (exact expectation under a random order within the
  tie; the main values, main score ``mrr_tie_expected``), ``<metric>_optimistic`` (rank ``h+1``,
  the official scripts' MRR/NDCG rule) and ``<metric>_pessimistic`` (rank ``h+t``), for metric in
  ``mrr``, ``ndcg_at_5``, ``recall_at_1/10/100``, ``median_rank``, ``mean_rank``;
* tie counts: ``n_gold_tied`` (golds tied with at least one other candidate), ``n_gold_tied_at_zero``
  (of those, golds whose score is exactly 0: the model found nothing for them, e.g. BM25 with no
  shared token), ``max_gold_tie`` (the largest tie, gold included);
* mteb's own retrieval scores (``ndcg_at_k``, ``recall_at_k``, ``mrr_at_k``, ``map_at_k``,
  ``precision_at_k``, computed by mteb on the returned top 100 with its own order within ties) are
  left exactly as mteb computes them: no key of mteb's name holds one of our values;
* ``gold_ranks_exact`` is 1 when every gold's tie range is over the full pool (dense encoders,
  BM25 models, two-stage models), 0 when some are lower bounds read from a truncated result list
  (``gold_ranks_lower_bound`` counts them);
* the task's data rule is recorded beside the scores: ``quoter_language`` (the query-format language,
  ``en``/``zh``/...), ``quoter_split`` (``line-order`` or ``shuffled``), ``quoter_train_end``,
  ``quoter_valid_end`` (the cut lines), ``quoter_shuffle_seed`` (-1 for line order).

Full-pool ranks come from :func:`mteb_contrastive.search.full_rank.with_gold_ranks` (dense: from the
embeddings by query chunks).
"""

from __future__ import annotations

import abc
import logging
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from mteb.abstasks.retrieval import AbsTaskRetrieval

from mteb_contrastive.data.atomic import write_text_atomic
from mteb_contrastive.data.quoter import (
    QueryFormat,
    build_retrieval_data,
    read_quoter_file,
    split_by_boundaries,
    split_by_proportions,
)
from mteb_contrastive.identity import file_digest
from mteb_contrastive.layout import prediction_subfolder, predictions_file
from mteb_contrastive.metrics.ranking import expected_reciprocal_rank, tie_aware_metrics
from mteb_contrastive.search.full_rank import with_gold_ranks

logger = logging.getLogger(__name__)


class AbsTaskQuoteRetrieval(AbsTaskRetrieval):
    """Retrieval of the missing quote among all quotes of a QuoteR file.

    Subclasses set (declaratively): the file (a QuoteR source of :mod:`mteb_contrastive.sources.quoter`),
    the split rule (``boundaries = (train_end, valid_end)`` in line order, or ``proportions``, after
    the shuffle with ``shuffle_seed`` when ``shuffle`` is true, else in line order) and ``language``
    ("en" lower-cases, as the official English script; anything else is kept as is). ``mask_marker`` and
    ``use_right_context`` set the query format (paper's defaults).
    """

    #: the protocol's row in :data:`mteb_contrastive.families.PROTOCOLS` (family, tie rule, resampling unit)
    protocol: ClassVar[str] = "quote-retrieval"

    k_values: ClassVar[tuple[int, ...]] = (1, 5, 10, 100)
    language: ClassVar[str] = "en"
    boundaries: ClassVar[tuple[int, int] | None] = None
    proportions: ClassVar[tuple[float, float]] = (0.8, 0.9)
    shuffle_seed: ClassVar[int] = 20240611
    shuffle: ClassVar[bool] = True
    split_record: dict[str, Any] = {}
    mask_marker: ClassVar[str] = "[MASK]"
    use_right_context: ClassVar[bool] = True
    faiss_index: ClassVar[str] = "flat"
    abstask_prompt = "Given the context around a missing quotation, retrieve the quotation."

    #: True when ``metadata.dataset["revision"]`` already fingerprints the file and the split rule
    revision_is_content: bool = False

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # the revision is the content: the split rule (the class's revision) + the file's bytes;
        # a folder built by `build-quoter` already carries that fingerprint as its revision
        if self.revision_is_content:
            return
        path = self.data_file()
        if path.is_file():
            rev = f"{self.metadata.dataset['revision']}-{file_digest(path)[:12]}"
            self.metadata = self.metadata.model_copy(update={"dataset": {**self.metadata.dataset, "revision": rev}})

    @classmethod
    @abc.abstractmethod
    def data_file(cls) -> Path:
        """The task's QuoteR file; each task declaration supplies it (a QuoteR source of
        :mod:`mteb_contrastive.sources`, which also says what is missing: ``data_missing``)."""

    def query_format(self) -> QueryFormat:
        return QueryFormat(
            language=self.language, mask_marker=self.mask_marker, use_right_context=self.use_right_context
        )

    def load_data(self, num_proc: int | None = None, *, timer: Any = None, **kwargs: Any) -> None:
        from datasets import Dataset
        from mteb.abstasks.retrieval_dataset_loaders import RetrievalSplitData

        if self.data_loaded:
            return
        path = self.data_file()
        if not path.is_file():
            raise FileNotFoundError(self.data_missing() or f"{self.metadata.name}: QuoteR file not found: {path}")
        examples = read_quoter_file(path)
        if self.boundaries is not None:
            splits = split_by_boundaries(examples, *self.boundaries, source=path)
        else:
            splits = split_by_proportions(
                examples, self.proportions, seed=self.shuffle_seed, source=path, shuffle=self.shuffle
            )
        shuffled = self.boundaries is None and self.shuffle
        self.split_record = {
            "quoter_language": self.language,
            "quoter_split": "shuffled" if shuffled else "line-order",
            "quoter_train_end": len(splits["train"]),
            "quoter_valid_end": len(splits["train"]) + len(splits["valid"]),
            "quoter_shuffle_seed": self.shuffle_seed if shuffled else -1,
        }
        self.dataset, self.pool_stats = {}, {}
        for split in self.eval_splits:
            data, stats = build_retrieval_data(examples, splits, self.query_format(), split)
            self.pool_stats[split] = stats
            logger.info("%s %s: %s", self.metadata.name, split, stats)
            self.dataset.setdefault("default", {})[split] = RetrievalSplitData(
                corpus=Dataset.from_list(data["corpus"]),
                queries=Dataset.from_list(data["queries"]),
                relevant_docs=data["qrels"],
                top_ranked=None,
            )
        self.data_loaded = True

    def _evaluate_subset(self, model: Any, data_split: Any, **kwargs: Any) -> dict[str, Any]:
        gold = {qid: next(iter(rel)) for qid, rel in data_split["relevant_docs"].items() if rel}
        search_model = with_gold_ranks(model, gold, faiss_index=self.faiss_index)
        scores = super()._evaluate_subset(search_model, data_split, **kwargs)
        ranking = search_model.gold_ranking()
        ties = [ranking.ties[q] for q in gold if q in ranking.ties]
        if len(ties) != len(gold):
            raise RuntimeError(f"{self.metadata.name}: gold tie ranges for {len(ties)} of {len(gold)} queries")
        higher = np.array([x.higher for x in ties], dtype=np.int64)
        tied = np.array([x.tied for x in ties], dtype=np.int64)
        scores.update(tie_aware_metrics(higher, tied, ks=(1, 10, 100), ndcg_k=5))
        if kwargs.get("prediction_folder"):
            self._save_per_item(
                search_model,
                list(gold),
                higher,
                tied,
                kwargs["prediction_folder"],
                hf_split=kwargs.get("hf_split", "test"),
                hf_subset=kwargs.get("hf_subset", "default"),
            )
        scores["n_gold_tied_at_zero"] = int(sum(1 for x in ties if x.tied > 1 and x.score == 0))
        scores["gold_ranks_exact"] = int(ranking.exact)
        scores["gold_ranks_lower_bound"] = ranking.n_lower_bound
        scores.update(self.split_record)
        scores.update(self.pool_stats.get(kwargs.get("hf_split", "test"), {}))
        scores.update(ranking.stage_scores)
        return scores

    @staticmethod
    def per_item(query_ids: list[str], higher: np.ndarray, tied: np.ndarray) -> dict[str, Any]:
        """The per-item contract of :func:`mteb_contrastive.report.reader.per_item_scores`: one
        expected reciprocal rank per query (:func:`~mteb_contrastive.metrics.ranking.expected_reciprocal_rank`
        of its gold's tie range), so ``mean(values) == mrr_tie_expected``, the main score."""
        return {
            "name": "mrr_tie_expected",
            "ids": list(query_ids),
            "values": expected_reciprocal_rank(higher, tied).tolist(),
        }

    def _save_per_item(
        self,
        search_model: Any,
        query_ids: list[str],
        higher: np.ndarray,
        tied: np.ndarray,
        prediction_folder: Any,
        *,
        hf_split: str,
        hf_subset: str,
    ) -> None:
        """Write :meth:`per_item` to ``<task>_per_item.json`` beside mteb's prediction file (same
        per-model folder, :func:`~mteb_contrastive.layout.prediction_subfolder`), under
        ``[hf_subset][hf_split]``, atomically. Not into mteb's file: its rankings are what mteb's
        ``convert_to_reranking`` reads, every key a query id."""
        import json

        meta = search_model.mteb_model_meta
        folder = prediction_subfolder(prediction_folder, meta.name, meta.revision)
        path = predictions_file(folder, self.metadata.name, kind="per_item")
        data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        data.setdefault(hf_subset, {})[hf_split] = self.per_item(query_ids, higher, tied)
        write_text_atomic(path, json.dumps(data))
