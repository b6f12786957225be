"""Author retrieval over a candidate pool built from triplets (HALvest-Contrastive).

Protocol (Kulumba et al., arXiv 2407.20595; authors' ``RetrievalEvaluator`` callback and
``HALvestContrastiveDatamodule._get_targets``):

* queries = the anchors of the split (identical anchor texts are one query);
* candidate pool = every positive and every negative of the split (2N texts), identical texts
  merged into one candidate (the count of merged duplicates is reported as
  ``pool_duplicates_removed``; the authors' code keeps 2N positional entries); a candidate
  identical to the query text is the query itself and is not ranked for it;
* a candidate is relevant to a query when its author set equals the query's author set
  (multi-positive qrels, relevance 1);
* main score nDCG@10; also Recall@10/20/100, nDCG@20/100, MRR@100 (mteb's evaluator).

Dense models are searched through :class:`~mteb_contrastive.search.faiss_backend.FaissSearchEncoderWrapper`
(exact inner product on normalised vectors for cosine); search models (e.g. mteb's BM25) and
cross-encoders go through mteb unchanged.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from mteb.abstasks.retrieval import AbsTaskRetrieval

from mteb_contrastive.protocols.triplet_source import TripletSource

logger = logging.getLogger(__name__)


def build_pool(rows: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, int]]:
    """Queries, candidate pool and qrels from triplet rows.

    Rules: queries = distinct anchor texts; pool = distinct positive/negative texts; a candidate
    is relevant to a query when one of its author sets (a text seen in several rows may carry
    several) equals the query's author set. A candidate whose text is identical to a query's
    text is that query itself (a span reused when a document has at most k sentences): it gets
    the query's id, so mteb's ``ignore_identical_ids`` drops it from that query's ranking, and it
    is not in that query's qrels (it stays a normal candidate for every other query).

    Args:
        rows: triplet rows (``query``, ``positive``, ``negative``, ``query_authorids``,
            ``pos_authorids``, ``neg_authorids``).

    Returns:
        ({"queries": [{"id", "text"}], "corpus": [{"id", "text"}], "qrels": {qid: {cid: 1}}},
         stats with ``n_triplets``, ``n_queries``, ``pool_size``, ``pool_candidates_raw``
         (= 2N), ``pool_duplicates_removed``, ``pool_texts_identical_to_a_query``,
         ``queries_without_relevant``).
    """
    q_id: dict[str, str] = {}
    q_authors: dict[str, frozenset] = {}
    for r in rows:
        t = r["query"]
        if t not in q_id:
            q_id[t] = f"q{len(q_id)}"
            q_authors[q_id[t]] = frozenset(map(str, r["query_authorids"]))

    cand_id: dict[str, str] = {}
    cand_authors: dict[str, set[frozenset]] = {}
    for r in rows:
        for text_f, auth_f in (("positive", "pos_authorids"), ("negative", "neg_authorids")):
            t = r[text_f]
            if t not in cand_id:
                cand_id[t] = q_id.get(t, f"c{len(cand_id)}")
                cand_authors[cand_id[t]] = set()
            cand_authors[cand_id[t]].add(frozenset(map(str, r[auth_f])))
    by_authors: dict[frozenset, list[str]] = {}
    for cid, sets in cand_authors.items():
        for s in sets:
            by_authors.setdefault(s, []).append(cid)

    qrels = {qid: {cid: 1 for cid in by_authors.get(a, []) if cid != qid} for qid, a in q_authors.items()}
    stats = {
        "n_triplets": len(rows),
        "n_queries": len(q_id),
        "pool_size": len(cand_id),
        "pool_candidates_raw": 2 * len(rows),
        "pool_duplicates_removed": 2 * len(rows) - len(cand_id),
        "pool_texts_identical_to_a_query": sum(1 for t in cand_id if t in q_id),
        "queries_without_relevant": sum(1 for v in qrels.values() if not v),
    }
    data = {
        "queries": [{"id": i, "text": t} for t, i in q_id.items()],
        "corpus": [{"id": i, "text": t} for t, i in cand_id.items()],
        "qrels": qrels,
    }
    return data, stats


class AbsTaskAuthorRetrieval(TripletSource, AbsTaskRetrieval):
    """Retrieval of same-author candidates; data from triplet rows via :func:`build_pool`.

    Subclasses implement :meth:`load_triplets` (same contract as the triplet task). The pool
    statistics of each subset/split are added to its scores (``pool_size``, ...).
    """

    k_values: ClassVar[tuple[int, ...]] = (1, 5, 10, 20, 100)
    #: a candidate with the same id as the query is the query itself (see :func:`build_pool`)
    ignore_identical_ids = True
    abstask_prompt = "Retrieve passages written by the same authors as the given passage."
    #: FAISS index kind for dense models ("flat" exact; "hnsw"/"ivf" approximate).
    faiss_index: ClassVar[str] = "flat"

    def prepare_split(self, rows: list[dict[str, Any]], info: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """Corpus, queries and qrels of one split (:func:`build_pool`) as mteb's ``RetrievalSplitData``."""
        from datasets import Dataset
        from mteb.abstasks.retrieval_dataset_loaders import RetrievalSplitData

        data, stats = build_pool(rows)
        split = RetrievalSplitData(
            corpus=Dataset.from_list(data["corpus"]),
            queries=Dataset.from_list(data["queries"]),
            relevant_docs=data["qrels"],
            top_ranked=None,
        )
        return split, stats

    def _evaluate_subset(self, model: Any, data_split: Any, **kwargs: Any) -> dict[str, Any]:
        from mteb_contrastive.search.faiss_backend import search_model_for

        # one more candidate per query when its own id is dropped (each query keeps top-k others)
        searcher = search_model_for(model, index=self.faiss_index, ignore_identical_ids=self.ignore_identical_ids)
        scores = super()._evaluate_subset(searcher, data_split, **kwargs)
        from mteb_contrastive.protocols.fitting import fit_summary

        scores.update(fit_summary(model))  # what a baseline fitted at index time learnt from ({} otherwise)
        return scores

    def task_specific_scores(self, scores: Any, qrels: Any, results: Any, hf_split: str, hf_subset: str) -> dict[str, float]:
        return self.split_counts(hf_subset, hf_split)
