"""The two-stage models of mteb's registry: ``rerank/<first stage>+<reranker>@<k>``.

``<first>`` in :data:`FIRST_STAGES` (``minilm``: sentence-transformers/all-MiniLM-L6-v2 searched
exactly through the FAISS backend; ``bm25``: mteb/baseline-bm25s), ``<reranker>`` in ``ce``, ``li``,
``bi`` (:mod:`mteb_contrastive.search.rerank`) and ``<k>`` any whole number >= 1 (10, 50, 100 are
registered ahead, :data:`REGISTERED_KS`; others are made on demand by :func:`model_meta_for_name`).
The reranker model is ``$MTEB_CONTRASTIVE_CROSS_ENCODER`` / ``$MTEB_CONTRASTIVE_LI_MODEL`` /
``$MTEB_CONTRASTIVE_BI_ENCODER``, default the bundled all-MiniLM-L6-v2 for ``li`` and ``bi``; ``ce``
has none (:data:`~mteb_contrastive.search.rerank.CE_MODEL_REQUIRED`): its loader refuses to load, in one line,
whatever mteb passes it. ``minilm+bi`` with the bundled MiniLM as bi-encoder is refused by name
(:func:`~mteb_contrastive.search.rerank.same_model_refusal`: the first stage's own embeddings would rescore
its own top-k and change nothing); it exists when ``$MTEB_CONTRASTIVE_BI_ENCODER`` names another model.
"""

from __future__ import annotations

import re
from typing import Any

from mteb_contrastive import config
from mteb_contrastive.config import MINILM, bundled_minilm
from mteb_contrastive.search.rerank import (
    CE_MODEL_REQUIRED,
    RERANKERS,
    UNSET,
    TwoStageSearch,
    make_reranker,
    same_model_refusal,
    two_stage_meta,
)

FIRST_STAGES = {"minilm": MINILM, "bm25": "mteb/baseline-bm25s"}
REGISTERED_KS = (10, 50, 100)


def build_two_stage(
    first: str,
    reranker: str,
    k: int,
    *,
    reranker_model: str | None = None,
    device: str | None = None,
    name: str | None = None,
) -> TwoStageSearch:
    """A :class:`TwoStageSearch` from short names: ``first`` in :data:`FIRST_STAGES` or any mteb model name."""
    import mteb

    first_model = mteb.get_model(FIRST_STAGES.get(first, first))
    rr = make_reranker(reranker, reranker_model, device=device)
    return TwoStageSearch(first_model, rr, k, name=name or f"rerank/{first}+{reranker}@{k}")


_NAME_RE = re.compile(r"^rerank/(?P<first>[^+@]+)\+(?P<kind>[^+@]+)@(?P<k>[^+@]+)$")


def _reranker_model(kind: str) -> str | None:
    """The reranker model of ``kind`` now: its variable, else the bundled MiniLM (None for ``ce``: no default)."""
    return config.env(config.RERANKER_ENV[kind]) or (None if kind == "ce" else bundled_minilm())


def _meta(first: str, kind: str, k: int) -> Any:
    first_name = FIRST_STAGES[first]
    # no random-head cross-encoder under a registered name: "ce" needs $MTEB_CONTRASTIVE_CROSS_ENCODER
    rmodel = _reranker_model(kind)
    name = f"rerank/{first}+{kind}@{k}"

    def loader(
        model_name: str,
        revision: str | None = None,
        *,
        first_stage: str = first_name,
        reranker: str = kind,
        reranker_model: str | None = rmodel,
        k: int = k,
        device: str | None = None,
        _name: str = name,
        **kwargs: Any,
    ) -> TwoStageSearch:
        if not reranker_model or reranker_model == UNSET:  # None as registered; "unset" in older metas
            raise ValueError(f"{_name}: {CE_MODEL_REQUIRED}")
        return build_two_stage(first_stage, reranker, k, reranker_model=reranker_model, device=device, name=_name)

    return two_stage_meta(name, first_name, None, k, reranker_kind=kind, reranker_model=rmodel, loader=loader)


def name_forms() -> str:
    """One line saying which ``rerank/...`` names exist."""
    return (
        f"rerank/<first>+<reranker>@<k> with <first> in {{{', '.join(FIRST_STAGES)}}}, "
        f"<reranker> in {{{', '.join(RERANKERS)}}} "
        f"and <k> any whole number >= 1 (e.g. rerank/bm25+ce@50)"
    )


def model_meta_for_name(name: str) -> Any:
    """The ``ModelMeta`` of any ``rerank/<first>+<reranker>@<k>`` name, for any k >= 1.

    Raises:
        ValueError: a name not of that form, an unknown first stage or reranker, or a k that is
            not a whole number >= 1 -- one line saying which names exist.
    """
    m = _NAME_RE.match(name)
    if not m:
        raise ValueError(f"unknown model name {name!r}: the rerank models are {name_forms()}")
    first, kind, k = m["first"], m["kind"], m["k"]
    if first not in FIRST_STAGES:
        raise ValueError(f"unknown first stage {first!r} in {name!r}: the rerank models are {name_forms()}")
    if kind not in RERANKERS:
        raise ValueError(f"unknown reranker {kind!r} in {name!r}: the rerank models are {name_forms()}")
    if not k.isdigit() or int(k) < 1:
        raise ValueError(f"k {k!r} in {name!r} is not a whole number >= 1: the rerank models are {name_forms()}")
    refusal = same_model_refusal(name, FIRST_STAGES[first], kind, _reranker_model(kind))
    if refusal:
        raise ValueError(refusal)
    return _meta(first, kind, int(k))


def registered_model_metas() -> list[Any]:
    """``rerank/<first>+<reranker>@<k>`` for the first stages, rerankers and ks of the module docstring
    (other ks are made on demand by :func:`model_meta_for_name`); a refused pair (``minilm+bi`` with MiniLM as
    bi-encoder) is left out, so asking for it reaches :func:`model_meta_for_name` and its one-line refusal."""
    return [
        _meta(first, kind, k)
        for first in FIRST_STAGES
        for kind in RERANKERS
        if same_model_refusal(first, FIRST_STAGES[first], kind, _reranker_model(kind)) is None
        for k in REGISTERED_KS
    ]
