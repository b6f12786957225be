"""Two-stage retrieval: a first stage returns each query's top-k, a reranker rescores those k.

Usable by any mteb retrieval task (ours or mteb's), from Python or from the stock ``mteb run``.

First stage: any mteb model -- a dense encoder (searched exactly through our FAISS backend,
:class:`~mteb_contrastive.search.faiss_backend.FaissSearchEncoderWrapper`) or a search model such
as mteb's BM25 (``mteb/baseline-bm25s``).

Rerankers (pointwise; each scores (query, candidate) pairs, higher is better):

* :class:`CrossEncoderReranker` -- a sentence-transformers ``CrossEncoder`` on the pair, ranked on
  its *raw logits* (no sigmoid: in float32 a sigmoid maps every logit above ~17 to 1.0 and the
  reranker's order would be lost to ties);
* :class:`LateInteractionReranker` -- token-level MaxSim (ColBERT; the HALvest-Contrastive paper's
  LI scorer) over any sentence-transformers model's token embeddings:
  ``score(q, d) = mean_i max_j cos(q_i, d_j)`` over the query's and candidate's tokens (special
  tokens included, padding excluded); identical texts score the maximum, 1;
* :class:`BiEncoderReranker` -- cosine of a sentence-transformers bi-encoder's pooled embeddings.

Final ranking of a query (:func:`rerank_results`): the first stage's top-k (best first, ties broken
by candidate id) reordered by the reranker's scores, then the rest of the first stage's list in its
own order, shifted below the reranked k. Only those k candidates are rescored: reranking never
changes which candidates are in the top-k set, only their order.

From ``mteb run``: the registered model names ``rerank/<first>+<reranker>@<k>`` with
``<first>`` in {``minilm`` (sentence-transformers/all-MiniLM-L6-v2 through FAISS), ``bm25``
(mteb/baseline-bm25s)}, ``<reranker>`` in {``ce``, ``li``, ``bi``} and ``<k>`` any whole number >= 1
(10, 50, 100 are registered ahead; others are made on demand, a bad name is one line listing the forms),
e.g. ``mteb run -m 'rerank/bm25+ce@50' -t QuoteRKJVNovelsEnglishRetrieval``. The reranker model is
``$MTEB_CONTRASTIVE_CROSS_ENCODER`` / ``$MTEB_CONTRASTIVE_LI_MODEL`` / ``$MTEB_CONTRASTIVE_BI_ENCODER``
(a name or a folder), default the bundled all-MiniLM-L6-v2 for ``li`` and ``bi``. ``ce`` has no
default: no pretrained cross-encoder can be downloaded here and MiniLM with a random head is not
one, so ``$MTEB_CONTRASTIVE_CROSS_ENCODER`` must name a trained cross-encoder (e.g. one made by
``mteb-contrastive train-reranker`` or ``train-cross-encoder``, docs/training.md); without it the
``ce`` names load with a clear error.
The result folder's model name says the stages and k, its revision the reranker model (a local
folder by the fingerprint of its weights and configs) and k, and
``model_meta.json``'s ``loader_kwargs`` all three; QuoteR tasks also store ``rerank_k``, the stage
times and the number of rescored pairs in the scores.

From Python::

    first = mteb.get_model("mteb/baseline-bm25s")
    model = TwoStageSearch(first, CrossEncoderReranker("cross-encoder/ms-marco-MiniLM-L6-v2"), k=50)
    mteb.evaluate(model, mteb.get_task("QuoteRKJVNovelsEnglishRetrieval"))
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mteb_contrastive import compat, config
from mteb_contrastive.config import MINILM, bundled_minilm, model_label
from mteb_contrastive.identity import fingerprint, model_folder_revision
from mteb_contrastive.layout import TRAINING_CONFIG_FILE
from mteb_contrastive.metrics.ranking import tie_range_of
from mteb_contrastive.search.faiss_backend import search_model_for
from mteb_contrastive.search.full_rank import GoldRanking, GoldRankingSearch, GoldTie, below_head, with_gold_ranks

logger = logging.getLogger(__name__)


def _device(device: str | None) -> str:
    return device or "cpu"


# ----------------------------------------------------------------------------------- rerankers


class CrossEncoderReranker:
    """Scores pairs with a sentence-transformers ``CrossEncoder``: one raw logit per pair (unbounded, float).

    The logits are what the model ranks by; ``CrossEncoder.predict``'s default activation (a
    sigmoid for one label) is switched off (``activation_fn=torch.nn.Identity()``) because in
    float32 it saturates: logits 29.689, 29.986 and 29.470 all become 1.0. A probability, when
    wanted, is :meth:`probabilities` (the model's own activation applied to the logits, beside them).

    Args:
        model_name_or_path: a cross-encoder (e.g. ``cross-encoder/ms-marco-MiniLM-L6-v2``). A plain
            encoder folder also loads, with a randomly initialised head (seeded by ``seed``).
        max_length: tokens per (query, candidate) pair; None (default): the length the model was
            trained at (:func:`trained_length`: ``training_config.json`` of a folder made by
            ``train-reranker`` / ``train-cross-encoder``), else the model's own saved maximum. Kept
            in :attr:`max_length` (recorded in the results as ``rerank_max_length``).
    """

    kind = "ce"

    def __init__(
        self,
        model_name_or_path: str,
        *,
        batch_size: int = 32,
        max_length: int | None = None,
        seed: int = 0,
        device: str | None = None,
    ) -> None:
        import torch
        from sentence_transformers import CrossEncoder

        torch.manual_seed(seed)  # only matters for an untrained head
        self.model_name = str(model_name_or_path)
        length = max_length if max_length is not None else trained_length(self.model_name)
        self.model = CrossEncoder(self.model_name, num_labels=1, max_length=length, device=_device(device))
        self.max_length = int(self.model.max_seq_length)
        self.batch_size = batch_size
        self.last_texts_encoded = 0  # a cross-encoder encodes pairs, not texts: its work is ``rerank_pairs``

    def score(self, queries: Sequence[str], docs: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Raw logits of every (query, candidate) pair: one float64 array per query, candidates' order."""
        import torch

        pairs = [(q, d) for q, ds in zip(queries, docs) for d in ds]
        flat = (
            np.asarray(
                self.model.predict(
                    pairs, batch_size=self.batch_size, show_progress_bar=False, activation_fn=torch.nn.Identity()
                ),
                dtype=np.float64,
            ).reshape(-1)
            if pairs
            else np.zeros(0)
        )
        out, s = [], 0
        for ds in docs:
            out.append(flat[s : s + len(ds)])
            s += len(ds)
        return out

    def probabilities(self, logits: np.ndarray) -> np.ndarray:
        """The model's default activation (sigmoid for one label) of ``logits``, in float64; for display,
        not ranking."""
        import torch

        act = self.model.get_default_activation_fn()
        return act(torch.as_tensor(np.asarray(logits, dtype=np.float64))).numpy()


def trained_length(model_name_or_path: str) -> int | None:
    """The context length (tokens per pair) a cross-encoder folder was trained at: ``config.context_length``
    of its ``training_config.json`` (written by ``train-reranker`` / ``train-cross-encoder``,
    :mod:`mteb_contrastive.training.cross_encoder`); None when the folder records none (a Hub name,
    another folder: the model's own saved maximum is used)."""
    import json

    f = os.path.join(str(model_name_or_path), TRAINING_CONFIG_FILE)
    if not os.path.isfile(f):
        return None
    try:
        length = json.loads(open(f, encoding="utf-8").read()).get("config", {}).get("context_length")
    except (ValueError, AttributeError):
        return None
    return length if type(length) is int and length > 0 else None  # not a bool, a float or a string


class _STReranker:
    """Shared: a sentence-transformers model and a per-call cache of distinct texts."""

    def __init__(self, model_name_or_path: str, *, batch_size: int = 32, device: str | None = None) -> None:
        from sentence_transformers import SentenceTransformer

        self.model_name = str(model_name_or_path)
        self.model = SentenceTransformer(self.model_name, device=_device(device))
        self.max_length = int(self.model.max_seq_length)
        self.batch_size = batch_size
        self.last_texts_encoded = 0  # distinct texts the last ``score`` call encoded

    def _distinct(self, queries: Sequence[str], docs: Sequence[Sequence[str]]) -> list[str]:
        seen: dict[str, None] = {}
        for t in queries:
            seen.setdefault(t, None)
        for ds in docs:
            for t in ds:
                seen.setdefault(t, None)
        self.last_texts_encoded = len(seen)
        return list(seen)


class BiEncoderReranker(_STReranker):
    """Cosine similarity of a sentence-transformers bi-encoder's pooled embeddings."""

    kind = "bi"

    def score(self, queries: Sequence[str], docs: Sequence[Sequence[str]]) -> list[np.ndarray]:
        texts = self._distinct(queries, docs)
        emb = self.model.encode(
            texts, batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        row = {t: i for i, t in enumerate(texts)}
        return [emb[[row[d] for d in ds]] @ emb[row[q]] if ds else np.zeros(0) for q, ds in zip(queries, docs)]


def maxsim(q_tokens: Any, d_tokens: Any) -> float:
    """Late-interaction score of L2-normalised token matrices: mean over query tokens of the max cosine."""
    sim = q_tokens @ d_tokens.T
    return float(sim.max(dim=1).values.mean())


class LateInteractionReranker(_STReranker):
    """Token-level MaxSim over a sentence-transformers model's token embeddings (see :func:`maxsim`)."""

    kind = "li"

    def token_embeddings(self, texts: Sequence[str]) -> list[Any]:
        import torch

        toks = self.model.encode(
            list(texts), batch_size=self.batch_size, output_value="token_embeddings", show_progress_bar=False
        )
        return [torch.nn.functional.normalize(t.float(), dim=-1) for t in toks]

    def score(self, queries: Sequence[str], docs: Sequence[Sequence[str]]) -> list[np.ndarray]:
        texts = self._distinct(queries, docs)
        tok = dict(zip(texts, self.token_embeddings(texts)))
        return [np.asarray([maxsim(tok[q], tok[d]) for d in ds], dtype=np.float64) for q, ds in zip(queries, docs)]


RERANKERS: dict[str, Callable[..., Any]] = {
    "ce": CrossEncoderReranker,
    "li": LateInteractionReranker,
    "bi": BiEncoderReranker,
}


CE_MODEL_REQUIRED = (
    "the ce reranker needs a trained cross-encoder: set MTEB_CONTRASTIVE_CROSS_ENCODER (or pass the model) to a "
    "cross-encoder folder, e.g. one made by `mteb-contrastive train-reranker` (docs/training.md); "
    "MiniLM with a random classification head is not used as a default"
)


def make_reranker(kind: str, model_name_or_path: str | None = None, **kwargs: Any) -> Any:
    """A reranker by kind ("ce", "li", "bi"); model default: the kind's env var, else bundled MiniLM (not for "ce").

    Raises:
        ValueError: unknown kind; "ce" without a model and without ``$MTEB_CONTRASTIVE_CROSS_ENCODER``.
    """
    if kind not in RERANKERS:
        raise ValueError(f"unknown reranker kind {kind!r}; choose one of {sorted(RERANKERS)}")
    name = model_name_or_path or config.env(config.RERANKER_ENV[kind])
    if not name:
        if kind == "ce":
            raise ValueError(CE_MODEL_REQUIRED)
        name = bundled_minilm()
    return RERANKERS[kind](name, **kwargs)


# ----------------------------------------------------------------------------------- the pipeline


def first_stage_topk(first: dict[str, float], k: int) -> list[tuple[str, float]]:
    """A query's first-stage list, best first (ties by candidate id), cut at ``k``."""
    return sorted(first.items(), key=lambda kv: (-kv[1], kv[0]))[:k]


def rerank_results(
    first_results: dict[str, dict[str, float]],
    query_texts: dict[str, str],
    doc_text: Callable[[str], str],
    reranker: Any,
    k: int,
    top_k: int | None = None,
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """Rerank each query's first-stage top-k.

    Args:
        first_results: query id -> {candidate id: first-stage score}.
        query_texts: query id -> text.
        doc_text: candidate id -> text.
        reranker: object with ``score(queries, docs_per_query) -> list of score arrays``.
        k: how many of the first stage's best candidates are rescored.
        top_k: length of the returned lists (default: as long as the first stage's).

    Returns:
        (final results: query id -> {candidate id: score}, the reranked top-k only with the
        reranker's scores). Final scores: the reranker's for the top-k; the first stage's tail
        shifted below them (order and ties kept).
    """
    qids = list(first_results)
    ranked = {q: sorted(first_results[q].items(), key=lambda kv: (-kv[1], kv[0])) for q in qids}
    heads = {q: ranked[q][:k] for q in qids}
    scores = reranker.score([query_texts[q] for q in qids], [[doc_text(c) for c, _ in heads[q]] for q in qids])
    final, reranked = {}, {}
    for q, sc in zip(qids, scores):
        head = {c: float(s) for (c, _), s in zip(heads[q], sc)}
        reranked[q] = head
        out = dict(head)
        tail = ranked[q][k:] if top_k is None else ranked[q][k : max(top_k, k)]
        if tail and head:
            shift = tail[0][1] - min(head.values()) + 1.0
            out.update({c: float(s) - shift for c, s in tail})
        elif tail:
            out.update({c: float(s) for c, s in tail})
        if top_k is not None and len(out) > top_k:
            out = dict(sorted(out.items(), key=lambda kv: -kv[1])[:top_k])
        final[q] = out
    return final, reranked


def as_first_stage(model: Any, faiss_index: str = "flat") -> Any:
    """The search model of a first stage: an encoder searched by the FAISS backend, or a search model.

    Raises:
        TypeError: ``model`` is neither (e.g. a cross-encoder).
    """
    from mteb.models.models_protocols import SearchProtocol

    searcher = search_model_for(model, index=faiss_index)
    if not isinstance(searcher, SearchProtocol):
        raise TypeError(f"first stage must be an mteb encoder or search model, got {type(model).__name__}")
    return searcher


def _doc_text(row: dict[str, Any]) -> str:
    title = row.get("title") or ""
    return f"{title} {row['text']}".strip() if title else row["text"]


def canonical_model(name: str | None) -> str:
    """One name per model for :func:`same_model`: the bundled all-MiniLM-L6-v2 folder is
    :data:`~mteb_contrastive.config.MINILM`, another folder its real path, a Hub name itself."""
    name = str(name or "")
    if name and os.path.isdir(name):
        real = os.path.realpath(name)
        bundled = bundled_minilm()
        return MINILM if os.path.isdir(bundled) and real == os.path.realpath(bundled) else real
    return name


def same_model(a: str | None, b: str | None) -> bool:
    """Whether two model names (Hub names or folders) name the same model (:func:`canonical_model`)."""
    return bool(a) and bool(b) and canonical_model(a) == canonical_model(b)


def same_model_refusal(name: str, first_model: str, reranker_kind: str, reranker_model: str | None) -> str | None:
    """Why ``name`` is refused, or None: a bi-encoder reranker (``bi``) with the first stage's own model
    rescores the top-k by the cosines that ranked it and changes nothing (difference 0, interval [0, 0]).
    ``li`` (MaxSim over token embeddings) and ``ce`` score differently and are kept."""
    if reranker_kind != "bi" or not same_model(first_model, reranker_model):
        return None
    return (
        f"{name}: the bi reranker's model ({model_label(str(reranker_model))}) is the first stage's "
        f"({first_model}); rescoring its top-k by the same embeddings changes nothing. Set "
        f"{config.RERANKER_ENV['bi']} to another bi-encoder, or use the li reranker (MaxSim over its tokens)"
    )


class TwoStageSearch(GoldRankingSearch):
    """mteb ``SearchProtocol``: first stage top-k, reranked (see the module docstring).

    Args:
        first_stage: an mteb encoder (FAISS) or search model (e.g. ``mteb.get_model("mteb/baseline-bm25s")``).
        reranker: a reranker (``score(queries, docs_per_query)``); see :func:`make_reranker`.
        k: candidates per query rescored by the reranker.
        name: the mteb model name recorded in results (default ``rerank/<first>+<kind>@<k>``).

    Raises:
        ValueError: ``k`` < 1; a bi-encoder reranker with the first stage's own model
            (:func:`same_model_refusal`).

    The cost of each stage is kept per evaluated (task, split, subset) (:meth:`stage_scores_for`;
    mteb passes ``task_metadata``, ``hf_split`` and ``hf_subset`` to ``index`` and ``search``).
    """

    def __init__(
        self, first_stage: Any, reranker: Any, k: int = 100, *, name: str | None = None, faiss_index: str = "flat"
    ) -> None:
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        self.first_model, self.reranker, self.k, self.faiss_index = first_stage, reranker, int(k), faiss_index
        first_name = getattr(getattr(first_stage, "mteb_model_meta", None), "name", None) or type(first_stage).__name__
        self.first_name = first_name
        name = name or f"rerank/{_slug(first_name)}+{getattr(reranker, 'kind', 'custom')}@{self.k}"
        refusal = same_model_refusal(
            name, first_name, getattr(reranker, "kind", "custom"), getattr(reranker, "model_name", None)
        )
        if refusal:
            raise ValueError(refusal)
        self.mteb_model_meta = two_stage_meta(name, first_name, reranker, self.k)
        self.gold: dict[str, str] = {}
        self.last_timings: dict[str, float] = {}
        self.costs: dict[tuple[str, str, str], dict[str, float]] = {}
        self._first: Any = None
        self._doc: dict[str, str] = {}

    @staticmethod
    def _key(kwargs: dict[str, Any]) -> tuple[str, str, str]:
        meta = kwargs.get("task_metadata")
        return (
            str(getattr(meta, "name", "")),
            str(kwargs.get("hf_split", "")),
            str(kwargs.get("hf_subset", "") or "default"),
        )

    def index(self, corpus: Any, **kwargs: Any) -> None:
        t0 = time.monotonic()
        self._first = (
            with_gold_ranks(self.first_model, self.gold, faiss_index=self.faiss_index)
            if self.gold
            else as_first_stage(self.first_model, self.faiss_index)
        )
        self._first.index(corpus, **kwargs)
        self._doc = {row["id"]: _doc_text(row) for row in corpus}
        self.last_timings = {"first_stage_index_seconds": time.monotonic() - t0, "first_stage_texts": len(self._doc)}

    def search(self, queries: Any, *, top_k: int, **kwargs: Any) -> dict[str, dict[str, float]]:
        if self._first is None:
            raise ValueError("call index() before search()")
        t0 = time.monotonic()
        first = self._first.search(queries, top_k=max(top_k, self.k), **kwargs)
        t1 = time.monotonic()
        qtexts = dict(zip(queries["id"], compat.combine_queries_with_instruction_text(queries)["text"]))
        final, reranked = rerank_results(first, qtexts, self._doc.__getitem__, self.reranker, self.k, top_k)
        t2 = time.monotonic()
        self.last_timings.update(
            first_stage_search_seconds=t1 - t0,
            rerank_seconds=t2 - t1,
            rerank_pairs=float(sum(len(v) for v in reranked.values())),
            rerank_texts_encoded=float(getattr(self.reranker, "last_texts_encoded", 0)),
        )
        self.last_timings["first_stage_texts"] = self.last_timings.get("first_stage_texts", 0) + len(qtexts)
        self.last_timings["first_stage_seconds"] = (
            self.last_timings["first_stage_index_seconds"] + self.last_timings["first_stage_search_seconds"]
        )
        self.costs[self._key(kwargs)] = self.stage_scores()
        if self.gold:
            self._gold_ranks(reranked)
        return final

    def _gold_ranks(self, reranked: dict[str, dict[str, float]]) -> None:
        first = self._first.gold_ranking()
        ties = {}
        for q, g in self.gold.items():
            head = reranked.get(q, {})
            if g in head:  # within the reranked head: ties among the reranker's scores
                ties[q] = GoldTie(*tie_range_of(head[g], head.values()), float(head[g]))
            else:  # below the reranked k, in first-stage order (its tie range cut at the head)
                ties[q] = below_head(first.ties.get(q), len(head))
        self._ranking = GoldRanking(ties, n_lower_bound=first.n_lower_bound, stage_scores=self.stage_scores())

    def stage_scores(self) -> dict[str, float]:
        """Numbers for the result file (:data:`STAGE_SCORES`): ``rerank_k``, the reranker's pair length, and per
        stage its work and its seconds, of the last ``index`` + ``search``."""
        out: dict[str, float] = {"rerank_k": self.k}
        length = getattr(self.reranker, "max_length", None)
        if length:
            out["rerank_max_length"] = int(length)
        out.update({k: round(v, 3) for k, v in self.last_timings.items()})
        return out

    def stage_scores_for(self, task: str, split: str, subset: str) -> dict[str, float]:
        """:meth:`stage_scores` of one evaluated (task, split, subset); empty when it was not searched here."""
        return dict(self.costs.get((task, split, subset or "default"), {}))


#: the cost keys a two-stage model adds to each evaluated subset's scores (:meth:`TwoStageSearch.stage_scores`):
#: work done (texts, pairs) and wall seconds per stage. ``first_stage_texts``: corpus texts indexed plus queries
#: searched (how many of them an encoder computed rather than read from the embedding cache is
#: ``encoding_texts_encoded``); ``rerank_texts_encoded``: distinct texts a bi-encoder / MaxSim reranker encoded
#: (0 for a cross-encoder, whose work is ``rerank_pairs``, the (query, candidate) pairs scored).
STAGE_SCORES = (
    "rerank_k",
    "rerank_max_length",
    "first_stage_texts",
    "first_stage_index_seconds",
    "first_stage_search_seconds",
    "first_stage_seconds",
    "rerank_pairs",
    "rerank_texts_encoded",
    "rerank_seconds",
)


# ----------------------------------------------------------------------------------- mteb registry


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", s).strip("-")[:60]


def is_two_stage(meta: Any) -> bool:
    """Whether an mteb ``ModelMeta`` is a two-stage model's (:func:`two_stage_meta`: its ``loader_kwargs``
    name the first stage, the reranker and k). Such a model is a search model: it runs retrieval tasks only."""
    return {"first_stage", "reranker", "k"} <= set(getattr(meta, "loader_kwargs", None) or {})


#: the revision's label of a reranker model that is not set (a registered ``ce`` name without its variable)
UNSET = "unset"


def reranker_identity(model: str) -> str:
    """8 hex characters naming a reranker model by content: the fingerprint of a local folder's
    weights and configs (:func:`mteb_contrastive.identity.model_folder_revision`), else of the
    Hub name."""
    if os.path.isdir(model):
        return model_folder_revision(model).removeprefix("local-")[:8]
    return fingerprint(model, length=8)


def two_stage_meta(
    name: str,
    first_name: str,
    reranker: Any,
    k: int,
    *,
    reranker_kind: str | None = None,
    reranker_model: str | None = None,
    loader: Any = None,
) -> Any:
    """mteb ``ModelMeta`` of a two-stage model: name as given, revision = reranker model + k (+ ``-len<L>`` for a
    cross-encoder folder that records its training length L, :func:`trained_length`, the length it is scored at).

    ``reranker`` None with ``reranker_model`` None: a registered name whose reranker model is not set
    (``ce`` without ``$MTEB_CONTRASTIVE_CROSS_ENCODER``): the revision says ``unset`` and
    ``loader_kwargs["reranker_model"]`` is None, so the loader (which mteb calls with those
    arguments) refuses it instead of loading a model named "unset".
    """
    from mteb.models.model_meta import ModelMeta

    kind = reranker_kind or getattr(reranker, "kind", "custom")
    rmodel = reranker_model or (getattr(reranker, "model_name", type(reranker).__name__) if reranker else None)
    label = str(rmodel) if rmodel else UNSET
    parts = label.rstrip("/").replace(os.sep, "/").split("/")
    base = "-".join(parts[-2:])  # "org-name" for Hub names, "parent-folder" for local folders
    rev = f"{kind}-{_slug(base)}-{reranker_identity(label)}-k{k}"
    length = trained_length(label) if kind == "ce" and rmodel else None
    if length:  # a cross-encoder scored at its recorded training length: results at another length are others
        rev += f"-len{length}"
    return ModelMeta.create_empty(
        overwrites=dict(
            loader=loader,
            loader_kwargs={
                "first_stage": first_name,
                "reranker": kind,
                "reranker_model": str(rmodel) if rmodel else None,
                "k": k,
            },
            name=name,
            revision=rev,
            reference=None,
            framework=["Sentence Transformers", "PyTorch"],
            modalities=["text"],
            model_type=["dense"],
            open_weights=True,
        )
    )
