"""Author retrieval over a candidate pool (HALvest-Contrastive), in both published schemas.

Triplet schema -- protocol of Kulumba et al. (arXiv 2407.20595; the authors' test loop
``on_test_epoch_end`` in ``halvesting_contrastive/modules/modeling_retriever.py`` and
``HALvestContrastiveDatamodule._get_targets``), :func:`build_pool`:

* queries = the anchors of the split (identical anchor texts are one query);
* candidate pool = every positive and every negative of the split (2N texts), identical texts
  merged into one candidate (the count of merged duplicates is reported as
  ``pool_duplicates_removed``; the authors' code keeps 2N positional entries); a candidate
  identical to the query text is the query itself and is not ranked for it;
* a candidate is relevant to a query when its author set equals the query's author set
  (multi-positive qrels, relevance 1); author names are compared in NFC
  (:func:`mteb_contrastive.identity.nfc_key`). The authors key a query's targets on its row's
  **positive**'s author set (``_get_targets``, ``halvest_contrastive_datamodule.py`` L231-244); their
  sampler draws positives with exactly the query's author set (``contrastive_sampler.py`` L172-177,
  L197-202), so the two agree; ``rows_positive_author_set_differs`` (:func:`positive_author_set_differs`)
  counts the rows where they would not.

Pairs schema (``almanach/HALvest-Contrastive``), :func:`build_pool_from_pairs`:

* queries = the distinct query spans of the split; pool = every distinct key span of the split;
* relevant = the keys that satisfy the config's positive rule with the query
  (:func:`mteb_contrastive.data.halvest.positive_rule`: same first author for ``base-*``, any
  shared author for ``base-soft-*``, the query's own document for ``ict-*``), computed from the
  ``*_authors`` / ``*_halid`` columns -- the rule of the authors' pairs sampler.

Both: main score nDCG@10; mteb's evaluator gives nDCG, MAP, ``recall_at_k`` (share of the
relevant candidates in the top k, trec_eval ``recall_k``; this is what the authors'
``torchmetrics.RetrievalRecall(top_k=10)`` reports as "Recall@10"), ``hit_rate_at_k`` (share of
queries with at least one relevant candidate in the top k, trec_eval ``success_k``), precision and
MRR at k = 1, 5, 10, 20, 100. Beside them:

* ``random_<metric>_at_<k>``: the exact expected score of a uniformly random ranking of the same
  pool (:mod:`mteb_contrastive.metrics.chance`), and ``pool_size`` (the paper's pool is ~14,300);
* ``<metric>_at_<k>_cross_document``: the same metrics with every candidate from the query's own
  document removed from its ranking and its qrels (queries left without a relevant candidate are
  dropped, ``n_queries_cross_document``); ``queries_with_same_document_candidates`` counts the
  queries that had one. The authors' code does not exclude them (``_get_targets`` keys targets on
  author sets only), so the plain metrics are the paper's.

* ``<metric>_at_<k>_topic_controlled`` (folders built with a topic field,
  :mod:`mteb_contrastive.data.halvest_builder`): queries with topics only; the relevant
  candidates are the same-author texts sharing **no** topic with the query, and the same-author
  texts sharing one (or without topics) are removed from its ranking and qrels; the other authors'
  texts on its topic stay as distractors, so the topic cue points the wrong way (content
  independence, :mod:`mteb_contrastive.metrics.content`); ``random_*_topic_controlled`` and
  ``n_queries_topic_controlled`` beside them. The pool is the usual triplets' texts: rows marked
  ``topic_controlled`` (the triplet task's own) are not in it.

Search depth: the query's own text and its own document's (or its topic's) candidates are dropped
after the search, so each query retrieves ``max(k) + 1 + (its split's largest number of dropped
candidates)`` hits; every @k metric is then scored on k real candidates.

Dense models are searched through :class:`~mteb_contrastive.search.faiss_backend.FaissSearchEncoderWrapper`
(exact inner product on normalised vectors for cosine); search models (e.g. mteb's BM25) and
cross-encoders go through mteb unchanged.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from mteb.abstasks.retrieval import AbsTaskRetrieval

from mteb_contrastive.compat import retrieval_scores
from mteb_contrastive.data.content import topic_set
from mteb_contrastive.data.halvest import is_positive, positive_rule
from mteb_contrastive.identity import nfc, nfc_key
from mteb_contrastive.metrics.chance import PAPER_POOL_SIZE, random_ranking_scores
from mteb_contrastive.protocols.fitting import fit_summary
from mteb_contrastive.protocols.triplet_source import TripletSource
from mteb_contrastive.search.faiss_backend import search_model_for

logger = logging.getLogger(__name__)


def _docs(value: Any) -> set[str]:
    """A HAL id field as a set of ids (a string, or a list of strings)."""
    if value is None:
        return set()
    if isinstance(value, str):
        return {value}
    return {str(v) for v in value}


def build_pool(rows: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, int]]:
    """Queries, candidate pool and qrels from triplet rows.

    Rules: queries = distinct anchor texts; pool = distinct positive/negative texts; a candidate
    is relevant to a query when one of its author sets (a text seen in several rows may carry
    several) equals the query's author set, names compared in NFC (``"José Müller"`` typed in NFC
    and in NFD is one author). A candidate whose text is identical to a query's
    text is that query itself (a span reused when a document has at most k sentences): it gets
    the query's id, so mteb's ``ignore_identical_ids`` drops it from that query's ranking, and it
    is not in that query's qrels (it stays a normal candidate for every other query).

    Args:
        rows: triplet rows (``query``, ``positive``, ``negative``, ``query_authorids``,
            ``pos_authorids``, ``neg_authorids``; optional ``query_halid``, ``pos_halid``,
            ``neg_halids`` for the same-document sets).

    Returns:
        ({"queries": [{"id", "text"}], "corpus": [{"id", "text"}], "qrels": {qid: {cid: 1}},
          "same_document": {qid: set of candidate ids from the query's document}},
         stats with ``n_triplets``, ``n_queries``, ``pool_size``, ``pool_candidates_raw``
         (= 2N), ``pool_duplicates_removed``, ``pool_texts_identical_to_a_query``,
         ``queries_without_relevant``).
    """
    q_id: dict[str, str] = {}
    q_authors: dict[str, frozenset] = {}
    q_docs: dict[str, set[str]] = {}
    for r in rows:
        t = r["query"]
        if t not in q_id:
            q_id[t] = f"q{len(q_id)}"
            q_authors[q_id[t]] = nfc_key(r["query_authorids"])
            q_docs[q_id[t]] = set()
        q_docs[q_id[t]] |= _docs(r.get("query_halid"))

    cand_id: dict[str, str] = {}
    cand_authors: dict[str, set[frozenset]] = {}
    cand_docs: dict[str, set[str]] = {}
    for r in rows:
        for text_f, auth_f, doc_f in (
            ("positive", "pos_authorids", "pos_halid"),
            ("negative", "neg_authorids", "neg_halids"),
        ):
            t = r[text_f]
            if t not in cand_id:
                cand_id[t] = q_id.get(t, f"c{len(cand_id)}")
                cand_authors[cand_id[t]] = set()
                cand_docs[cand_id[t]] = set()
            cand_authors[cand_id[t]].add(nfc_key(r[auth_f]))
            cand_docs[cand_id[t]] |= _docs(r.get(doc_f))
    by_authors: dict[frozenset, list[str]] = {}
    for cid, sets in cand_authors.items():
        for s in sets:
            by_authors.setdefault(s, []).append(cid)

    qrels = {qid: {cid: 1 for cid in by_authors.get(a, []) if cid != qid} for qid, a in q_authors.items()}
    data, stats = _pool_split(q_id, cand_id, qrels, _same_document(q_docs, cand_docs), raw_candidates=2 * len(rows))
    return data, {"n_triplets": len(rows), **stats, "pool_candidates_raw": 2 * len(rows)}


def positive_author_set_differs(rows: list[dict[str, Any]]) -> int:
    """Triplet rows whose positive's author set is not the query's (NFC): on these rows the authors'
    qrels (keyed on the positive's set) and :func:`build_pool`'s (keyed on the query's) differ."""
    return sum(1 for r in rows if nfc_key(r["query_authorids"]) != nfc_key(r["pos_authorids"]))


def _same_document(q_docs: dict[str, set[str]], cand_docs: dict[str, set[str]]) -> dict[str, set[str]]:
    by_doc: dict[str, set[str]] = {}
    for cid, docs in cand_docs.items():
        for d in docs:
            by_doc.setdefault(d, set()).add(cid)
    out = {}
    for qid, docs in q_docs.items():
        s: set[str] = set()
        for d in docs:
            s |= by_doc.get(d, set())
        s.discard(qid)
        out[qid] = s
    return out


def build_pool_from_pairs(rows: list[dict[str, Any]], config: str) -> tuple[dict[str, Any], dict[str, int]]:
    """Queries, candidate pool and qrels from the pairs release, natively.

    Rules (source: the authors' pairs sampler, see :mod:`mteb_contrastive.data.halvest`):
    queries = distinct ``query_text``; pool = distinct ``key_text``; a candidate is relevant to a
    query when it satisfies the config's positive rule (:func:`~mteb_contrastive.data.halvest.positive_rule`)
    with the query: ``base-*`` the candidate's first author is the query's first author,
    ``base-soft-*`` they share an author, ``ict-*`` the candidate comes from the query's document.
    Authors compared in NFC, in their listed order for the first author. A key whose text is a
    query's text takes that query's id (dropped from its own ranking, as in :func:`build_pool`).

    Args:
        rows: validated pair rows (:data:`~mteb_contrastive.data.halvest.PAIR_COLUMNS`).
        config: the config name (``base-4``, ``base-soft-2``, ``ict-2``, ...).

    Returns:
        like :func:`build_pool`; stats with ``pair_rows_in_pool`` instead of ``n_triplets``.

    Raises:
        DataError: a config name with no positive rule.
    """
    rule = positive_rule(config)
    q_id: dict[str, str] = {}
    q_info: dict[str, tuple[tuple[str, ...], str]] = {}
    for r in rows:
        t = r["query_text"]
        if t not in q_id:
            q_id[t] = f"q{len(q_id)}"
            q_info[q_id[t]] = (tuple(nfc(str(a)) for a in r["query_authors"]), str(r["query_halid"]))
    cand_id: dict[str, str] = {}
    cand_info: dict[str, set[tuple[tuple[str, ...], str]]] = {}
    for r in rows:
        t = r["key_text"]
        if t not in cand_id:
            cand_id[t] = q_id.get(t, f"c{len(cand_id)}")
            cand_info[cand_id[t]] = set()
        cand_info[cand_id[t]].add((tuple(nfc(str(a)) for a in r["key_authors"]), str(r["key_halid"])))
    # index candidates by the key each rule needs, so no query x pool loop is made
    by_first: dict[str, set[str]] = {}
    by_author: dict[str, set[str]] = {}
    by_doc: dict[str, set[str]] = {}
    for cid, infos in cand_info.items():
        for authors, doc in infos:
            if authors:
                by_first.setdefault(authors[0], set()).add(cid)
            for a in authors:
                by_author.setdefault(a, set()).add(cid)
            by_doc.setdefault(doc, set()).add(cid)
    qrels: dict[str, dict[str, int]] = {}
    same_doc: dict[str, set[str]] = {}
    for qid, (authors, doc) in q_info.items():
        if rule == "first_author":
            rel = set(by_first.get(authors[0], set())) if authors else set()
        elif rule == "any_author":
            rel = set().union(*(by_author.get(a, set()) for a in authors)) if authors else set()
        else:
            rel = set(by_doc.get(doc, set()))
        # every candidate found through the index satisfies the rule by construction; keep the check explicit
        rel = {c for c in rel if any(is_positive(rule, authors, ka, kd == doc) for ka, kd in cand_info[c])}
        rel.discard(qid)
        qrels[qid] = {c: 1 for c in sorted(rel)}
        same_doc[qid] = set(by_doc.get(doc, set())) - {qid}
    data, stats = _pool_split(q_id, cand_id, qrels, same_doc, raw_candidates=len(rows))
    return data, {"pair_rows_in_pool": len(rows), **stats}


def _pool_split(
    q_id: dict[str, str],
    cand_id: dict[str, str],
    qrels: dict[str, dict[str, int]],
    same_doc: dict[str, set[str]],
    *,
    raw_candidates: int,
) -> tuple[dict[str, Any], dict[str, int]]:
    """The queries/corpus/qrels/same-document structure of a pool and its common counts.

    Args:
        q_id: query text -> query id; cand_id: candidate text -> candidate id (both in first-seen order).
        raw_candidates: candidate entries before identical texts were merged.
    """
    stats = {
        "n_queries": len(q_id),
        "pool_size": len(cand_id),
        "pool_duplicates_removed": raw_candidates - len(cand_id),
        "pool_texts_identical_to_a_query": sum(1 for t in cand_id if t in q_id),
        "queries_without_relevant": sum(1 for v in qrels.values() if not v),
    }
    data = {
        "queries": [{"id": i, "text": t} for t, i in q_id.items()],
        "corpus": [{"id": i, "text": t} for t, i in cand_id.items()],
        "qrels": qrels,
        "same_document": same_doc,
    }
    return data, stats


def topic_exclusions(rows: list[dict[str, Any]], data: dict[str, Any]) -> dict[str, set[str]]:
    """Per query with topics: the same-author candidates to remove for the topic-controlled metrics.

    Relevant candidates (the qrels of :func:`build_pool`) sharing a topic with the query, or with no
    topics, are removed; a query without topics gets no entry (it takes no part). Topics of a text:
    the union of ``query_topics`` / ``pos_topics`` / ``neg_topics`` over the rows it appears in, each
    read by :func:`mteb_contrastive.data.content.topic_set` (NFC, case-folded).

    Returns:
        query id -> candidate ids to remove (possibly empty); {} when the rows carry no topics.
    """
    if not rows or "query_topics" not in rows[0]:
        return {}
    topics: dict[str, set[str]] = {}
    for r in rows:
        for text_f, topic_f in (("query", "query_topics"), ("positive", "pos_topics"), ("negative", "neg_topics")):
            topics.setdefault(r[text_f], set()).update(topic_set(r.get(topic_f)))  # NFC, case-folded
    by_id = {c["id"]: topics.get(c["text"], set()) for c in data["corpus"]}
    out = {}
    for q in data["queries"]:
        mine = topics.get(q["text"], set())
        if mine:
            rel = data["qrels"].get(q["id"], {})
            out[q["id"]] = {c for c in rel if not by_id.get(c) or by_id[c] & mine}
    return out


def topic_chance(data: dict[str, Any], removed: dict[str, set[str]], k_values: tuple[int, ...]) -> dict[str, float]:
    """``random_<metric>_at_<k>_topic_controlled`` (the exact random-ranking expectations of each
    topic-controlled query's reduced pool, averaged) and ``n_queries_topic_controlled``."""
    ids = {c["id"] for c in data["corpus"]}
    pool = len(data["corpus"])
    per = []
    for qid, gone in removed.items():
        rel = set(data["qrels"].get(qid, {})) - gone
        if rel:
            per.append((pool - (1 if qid in ids else 0) - len(gone), len(rel)))
    out = {f"{k}_topic_controlled": v for k, v in random_ranking_scores(per, k_values).items()}
    out["n_queries_topic_controlled"] = len(per)
    return out


def pool_chance(data: dict[str, Any], k_values: tuple[int, ...]) -> dict[str, float]:
    """Chance levels and same-document counts of a pool from :func:`build_pool` / :func:`build_pool_from_pairs`.

    For each query with a relevant candidate: the pool it is ranked against (``pool_size`` less
    its own text when that text is in the pool) and its number of relevant candidates give the
    exact random-ranking expectations (:func:`~mteb_contrastive.metrics.chance.random_ranking_scores`),
    averaged over queries; the same with the query's own document removed gives the
    ``random_*_cross_document`` values.

    Returns:
        ``random_<metric>_at_<k>``, ``random_<metric>_at_<k>_cross_document``,
        ``queries_with_same_document_candidates``, ``max_same_document_candidates``,
        ``n_queries_cross_document``, ``pool_size_over_paper`` (pool size / 14,300).
    """
    pool = len(data["corpus"])
    ids = {c["id"] for c in data["corpus"]}
    plain, cross = [], []
    with_same = 0
    max_same = 0
    for q in data["queries"]:
        qid = q["id"]
        n = pool - (1 if qid in ids else 0)
        rel = set(data["qrels"].get(qid, {}))
        same = data["same_document"].get(qid, set())
        if same:
            with_same += 1
        max_same = max(max_same, len(same))
        plain.append((n, len(rel)))
        cross.append((n - len(same), len(rel - same)))
    out = random_ranking_scores(plain, k_values)
    out.update({f"{k}_cross_document": v for k, v in random_ranking_scores(cross, k_values).items()})
    out["queries_with_same_document_candidates"] = with_same
    out["max_same_document_candidates"] = max_same
    out["n_queries_cross_document"] = sum(1 for _, r in cross if r > 0)
    out["pool_size_over_paper"] = pool / PAPER_POOL_SIZE
    return out


class AbsTaskAuthorRetrieval(TripletSource, AbsTaskRetrieval):
    """Retrieval of same-author candidates; data from triplet rows (:func:`build_pool`) or from
    pair rows (:func:`build_pool_from_pairs`, when the load info says ``schema: pairs``).

    Subclasses implement :meth:`load_triplets` (same contract as the triplet task; for pair rows
    the info also names the ``config``). The pool statistics, chance levels and cross-document
    metrics of each subset/split are added to its scores (see the module docstring).
    """

    #: the protocol's row in :data:`mteb_contrastive.families.PROTOCOLS` (family, tie rule, resampling unit)
    protocol: ClassVar[str] = "author-retrieval"

    k_values: ClassVar[tuple[int, ...]] = (1, 5, 10, 20, 100)
    #: a candidate with the same id as the query is the query itself (see :func:`build_pool`)
    ignore_identical_ids = True
    abstask_prompt = "Retrieve passages written by the same authors as the given passage."
    #: FAISS index kind for dense models ("flat" exact; "hnsw"/"ivf" approximate).
    faiss_index: ClassVar[str] = "flat"

    def prepare_split(self, rows: list[dict[str, Any]], info: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """Corpus, queries and qrels of one split as mteb's ``RetrievalSplitData`` (+ its same-document sets)."""
        from datasets import Dataset
        from mteb.abstasks.retrieval_dataset_loaders import RetrievalSplitData

        removed: dict[str, set[str]] = {}
        if info.get("schema") == "pairs":
            data, stats = build_pool_from_pairs(rows, info["config"])
        else:
            rows = [r for r in rows if not r.get("topic_controlled")]  # the triplet task's own rows
            data, stats = build_pool(rows)
            stats["rows_positive_author_set_differs"] = positive_author_set_differs(rows)
            removed = topic_exclusions(rows, data)
        stats.update(pool_chance(data, self.k_values))
        if removed:
            stats.update(topic_chance(data, removed, self.k_values))
        if not 0.5 <= stats["pool_size_over_paper"] <= 2:
            logger.info(
                "%s: pool of %d candidates, far from the paper's ~%d: chance levels differ (random nDCG@10 %.5f)",
                self.metadata.name,
                stats["pool_size"],
                PAPER_POOL_SIZE,
                stats.get("random_ndcg_at_10", float("nan")),
            )
        split = RetrievalSplitData(
            corpus=Dataset.from_list(data["corpus"]),
            queries=Dataset.from_list(data["queries"]),
            relevant_docs=data["qrels"],
            top_ranked=None,
        )
        return (split, data["same_document"], removed), stats

    def load_data(self, num_proc: int | None = None, *, timer: Any = None, **kwargs: Any) -> None:
        if self.data_loaded:
            return
        super().load_data(num_proc=num_proc, timer=timer, **kwargs)
        self._same_document: dict[tuple[str, str], dict[str, set[str]]] = {}
        self._topic_removed: dict[tuple[str, str], dict[str, set[str]]] = {}
        for hf_subset, splits in self.dataset.items():
            for split, (data, same, removed) in list(splits.items()):
                splits[split] = data
                self._same_document[(hf_subset, split)] = same
                self._topic_removed[(hf_subset, split)] = removed
        # the query's own text and its document's (or topic's) candidates are dropped after the
        # search: search that many more, so every @k metric is scored on k real candidates
        extra = max(
            (
                len(v)
                for dropped in (*self._same_document.values(), *self._topic_removed.values())
                for v in dropped.values()
            ),
            default=0,
        )
        self._top_k = max(self.k_values) + 1 + extra

    def _evaluate_subset(self, model: Any, data_split: Any, **kwargs: Any) -> dict[str, Any]:
        # one more candidate per query when its own id is dropped (each query keeps top-k others)
        searcher = search_model_for(model, index=self.faiss_index, ignore_identical_ids=self.ignore_identical_ids)
        scores = super()._evaluate_subset(searcher, data_split, **kwargs)
        scores.update(fit_summary(model))  # what a baseline fitted at index time learnt from ({} otherwise)
        return scores

    def task_specific_scores(
        self, scores: Any, qrels: Any, results: Any, hf_split: str, hf_subset: str
    ) -> dict[str, Any]:
        """Pool counts, chance levels, the source, and the ``*_cross_document`` metrics of one split.

        ``results`` arrive with each query's own id already removed (``ignore_identical_ids``);
        here each query's same-document candidates are removed from its ranking and its qrels,
        and mteb's retrieval metrics are computed again on what is left.
        """
        out: dict[str, Any] = dict(self.split_counts(hf_subset, hf_split))
        out["dataset_path"] = str(self.metadata.dataset["path"])
        out["dataset_revision"] = str(self.metadata.dataset.get("revision"))
        same = getattr(self, "_same_document", {}).get((hf_subset, hf_split), {})
        cross_qrels = {q: {c: r for c, r in rels.items() if c not in same.get(q, ())} for q, rels in qrels.items()}
        cross_qrels = {q: rels for q, rels in cross_qrels.items() if rels}
        if cross_qrels:
            cross_results = {
                q: {c: s for c, s in docs.items() if c not in same.get(q, ())}
                for q, docs in results.items()
                if q in cross_qrels
            }
            out.update(
                {
                    f"{k}_cross_document": v
                    for k, v in retrieval_scores(cross_qrels, cross_results, self.k_values).items()
                }
            )
        removed = getattr(self, "_topic_removed", {}).get((hf_subset, hf_split), {})
        tc_qrels = {q: {c: r for c, r in qrels.get(q, {}).items() if c not in gone} for q, gone in removed.items()}
        tc_qrels = {q: rels for q, rels in tc_qrels.items() if rels}
        if tc_qrels:
            tc_results = {q: {c: s for c, s in results.get(q, {}).items() if c not in removed[q]} for q in tc_qrels}
            out.update(
                {f"{k}_topic_controlled": v for k, v in retrieval_scores(tc_qrels, tc_results, self.k_values).items()}
            )
        return out
