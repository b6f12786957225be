"""Quote recommendation as retrieval (QuoteR, Qi et al., ACL 2022, arXiv 2202.13145).

Protocol:

* data: a QuoteR line file (:mod:`mteb_contrastive.data.quoter`), split by line order (official
  boundaries) or by proportions after the fixed-seed shuffle (shared files);
* candidate pool = every distinct quote of the whole file; queries = the test lines' contexts
  around a mask marker; one relevant candidate per query (its gold quote);
* metrics (:mod:`mteb_contrastive.metrics.ranking`): ``mrr`` over the full ranking (main score),
  ``ndcg_at_5``, ``recall_at_1/10/100``, ``median_rank`` (1-based), ``mean_rank``; the gold's rank
  is ``1 + #candidates scored strictly higher``. These keys replace mteb's own ``ndcg_at_5`` and
  ``recall_at_*``; mteb's other retrieval scores (``map_at_*``, ``mrr_at_*``, ``precision_at_*``,
  computed on the returned top-100) stay in the result. ``gold_ranks_exact`` is 1 when every
  gold rank is over the full pool (dense encoders, mteb's BM25, two-stage models), 0 when some are
  lower bounds read from a truncated result list (``gold_ranks_lower_bound`` counts them).

Full-pool ranks come from :func:`mteb_contrastive.search.full_rank.with_gold_ranks` (dense: from the
embeddings by query chunks).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, ClassVar

from mteb.abstasks.retrieval import AbsTaskRetrieval

from mteb_contrastive.data.quoter import QueryFormat, build_retrieval_data, read_quoter_file, split_by_boundaries, split_by_proportions
from mteb_contrastive.metrics.ranking import ranking_metrics

logger = logging.getLogger(__name__)


class AbsTaskQuoteRetrieval(AbsTaskRetrieval):
    """Retrieval of the missing quote among all quotes of a QuoteR file.

    Subclasses set (declaratively): ``quoter_file`` (file name), :meth:`data_dir` (where it is),
    the split rule (``boundaries = (train_end, valid_end)`` in line order, or ``proportions`` after
    the shuffle with ``shuffle_seed``) and ``language`` ("en" / "zh"). ``mask_marker`` and
    ``use_right_context`` set the query format (paper's defaults).
    """

    k_values: ClassVar[tuple[int, ...]] = (1, 5, 10, 100)
    quoter_file: ClassVar[str] = ""
    language: ClassVar[str] = "en"
    boundaries: ClassVar[tuple[int, int] | None] = None
    proportions: ClassVar[tuple[float, float]] = (0.8, 0.9)
    shuffle_seed: ClassVar[int] = 20240611
    mask_marker: ClassVar[str] = "[MASK]"
    use_right_context: ClassVar[bool] = True
    faiss_index: ClassVar[str] = "flat"
    abstask_prompt = "Given the context around a missing quotation, retrieve the quotation."

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # the revision is the content: the split rule (the class's revision) + the file's bytes
        try:
            path = self.data_file()
        except NotImplementedError:
            return
        if path.is_file():
            from mteb_contrastive.identity import file_digest

            rev = f"{self.metadata.dataset['revision']}-{file_digest(path)[:12]}"
            self.metadata = self.metadata.model_copy(update={"dataset": {**self.metadata.dataset, "revision": rev}})

    @classmethod
    def data_dir(cls) -> Path:
        raise NotImplementedError

    @classmethod
    def data_file(cls) -> Path:
        return cls.data_dir() / cls.quoter_file

    def query_format(self) -> QueryFormat:
        return QueryFormat(language=self.language, mask_marker=self.mask_marker, use_right_context=self.use_right_context)

    def load_data(self, num_proc: int | None = None, *, timer: Any = None, **kwargs: Any) -> None:
        from datasets import Dataset
        from mteb.abstasks.retrieval_dataset_loaders import RetrievalSplitData

        if self.data_loaded:
            return
        path = self.data_file()
        if not path.is_file():
            raise FileNotFoundError(self.missing_data_message(path))
        examples = read_quoter_file(path)
        if self.boundaries is not None:
            splits = split_by_boundaries(examples, *self.boundaries, source=path)
        else:
            splits = split_by_proportions(examples, self.proportions, seed=self.shuffle_seed, source=path)
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

    @classmethod
    def missing_data_message(cls, path: Path) -> str:
        return f"{cls.__name__}: QuoteR file not found: {path}"

    def _evaluate_subset(self, model: Any, data_split: Any, **kwargs: Any) -> dict[str, Any]:
        from mteb_contrastive.search.full_rank import with_gold_ranks

        gold = {qid: next(iter(rel)) for qid, rel in data_split["relevant_docs"].items() if rel}
        search_model = with_gold_ranks(model, gold, faiss_index=self.faiss_index)
        scores = super()._evaluate_subset(search_model, data_split, **kwargs)
        ranks = [search_model.gold_ranks[q] for q in gold if q in search_model.gold_ranks]
        if len(ranks) != len(gold):
            raise RuntimeError(f"{self.metadata.name}: gold ranks for {len(ranks)} of {len(gold)} queries")
        scores.update(ranking_metrics(ranks, ks=(1, 10, 100), ndcg_k=5))
        scores["gold_ranks_exact"] = int(bool(getattr(search_model, "gold_ranks_exact", True)))
        scores["gold_ranks_lower_bound"] = int(getattr(search_model, "n_lower_bound", 0))
        scores.update(self.pool_stats.get(kwargs.get("hf_split", "test"), {}))
        describe = getattr(search_model, "stage_scores", None)
        if callable(describe):
            scores.update(describe())
        return scores


def env_dir(env: str, default: Path | None = None) -> Path | None:
    """The folder named by environment variable ``env``, else ``default``."""
    v = os.environ.get(env)
    return Path(v).expanduser() if v else default
