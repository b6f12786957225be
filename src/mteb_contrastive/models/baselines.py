"""mteb ``ModelMeta`` objects of the classic baselines (:mod:`mteb_contrastive.baselines`).

They are fitted at evaluation time (no weights, no parameters): the meta says what each is fitted
on (``public_training_data``) and its revision is :func:`mteb_contrastive.baselines.baseline_revision`
(``bm25s-lang``: :func:`mteb_contrastive.baselines.bm25_lang.revision`).
"""

from __future__ import annotations

from typing import Any

from mteb.models.model_meta import ModelMeta, ScoringFunction

from mteb_contrastive.baselines import BASELINES, baseline_revision, bm25_lang, load_baseline

#: the release date recorded for the baselines' metas
RELEASE_DATE = "2026-11-29"


def fitted_model_meta(
    *,
    loader: Any,
    name: str,
    revision: str,
    fitted_on: str,
    reference: str,
    model_type: str,
    similarity_fn_name: Any = None,
    loader_kwargs: dict[str, Any] | None = None,
    release_date: str = RELEASE_DATE,
) -> ModelMeta:
    """mteb ``ModelMeta`` of a model fitted at evaluation time (no weights, no parameters)."""
    return ModelMeta(
        loader=loader,
        loader_kwargs=dict(loader_kwargs or {}),
        name=name,
        revision=revision,
        release_date=release_date,
        languages=None,
        n_parameters=0,
        n_embedding_parameters=0,
        memory_usage_mb=None,
        max_tokens=None,
        embed_dim=None,
        license=None,
        open_weights=True,
        public_training_code=None,
        public_training_data=f"fitted at evaluation time on {fitted_on}",
        framework=["NumPy"],
        reference=reference,
        similarity_fn_name=similarity_fn_name,
        use_instructions=False,
        training_datasets=None,
        model_type=[model_type],
    )


def registered_model_metas() -> list[ModelMeta]:
    """The metas of every row of :data:`~mteb_contrastive.baselines.BASELINES`."""
    return [
        fitted_model_meta(
            loader=load_baseline,
            loader_kwargs=kwargs,
            name=name,
            revision=baseline_revision(name),
            fitted_on=fitted_on,
            reference=ref,
            model_type=mtype,
            similarity_fn_name=ScoringFunction.COSINE if sim == "cosine" else None,
        )
        for name, (_, kwargs, mtype, sim, fitted_on, ref) in BASELINES.items()
    ]


def bm25_lang_meta() -> ModelMeta:
    """The meta of ``mteb-contrastive/bm25s-lang`` (:mod:`mteb_contrastive.baselines.bm25_lang`)."""
    return fitted_model_meta(
        loader=bm25_lang.load,
        name=bm25_lang.MODEL_NAME,
        revision=bm25_lang.revision(),
        release_date="2026-12-01",
        fitted_on="the evaluated split's corpus (IDF, lengths)",
        reference="https://github.com/xhluca/bm25s",
        model_type="sparse",
    )
