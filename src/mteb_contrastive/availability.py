"""Is a task's data present on this machine? One check for the generic sweep, the benchmarks and ``evaluate``.

:func:`missing_data` answers for one task class without loading its data (path and environment
checks only):

* official PAN (``PAN20Verification``, ``PAN21Verification``): ``MTEB_CONTRASTIVE_PAN20`` /
  ``MTEB_CONTRASTIVE_PAN21`` set to a folder with ``test/pairs.jsonl``;
* QuoteR tasks: the task's line file exists (``MTEB_CONTRASTIVE_QUOTER_OFFICIAL`` for the
  official files, ``MTEB_CONTRASTIVE_QUOTER_DATA`` or ``<shared>/quoter`` for the shared ones);
* ``CranfieldIRTriplets``: the Cranfield BEIR folder has ``corpus.jsonl``;
* HALvest (HuggingFace Hub): unavailable only when ``HF_HUB_OFFLINE=1`` and no local copy is named
  by ``MTEB_CONTRASTIVE_HALVEST_PATH`` (no network call here);
* tasks made from built folders: present by construction.
"""

from __future__ import annotations

import os


def missing_data(cls: type) -> str | None:
    """None when ``cls``'s data can be loaded here; else one line saying what is missing and how to fix it."""
    from mteb_contrastive.protocols.quote_retrieval import AbsTaskQuoteRetrieval
    from mteb_contrastive.registry import IRTripletsBuiltOnFirstLoad

    if isinstance(cls, type) and issubclass(cls, AbsTaskQuoteRetrieval) and cls.quoter_file:
        path = cls.data_file()
        return None if path.is_file() else cls.missing_data_message(path)
    folder_env = getattr(cls, "folder_env", None)
    if folder_env:
        try:
            cls().pan_folder()
        except FileNotFoundError as exc:
            return str(exc)
        return None
    if isinstance(cls, type) and issubclass(cls, IRTripletsBuiltOnFirstLoad):
        return cls.missing_source()
    name = cls.metadata.name
    if str(cls.metadata.dataset.get("path", "")).startswith("almanach/"):
        if os.environ.get("HF_HUB_OFFLINE") == "1" and not os.environ.get("MTEB_CONTRASTIVE_HALVEST_PATH"):
            return f"{name}: on the HuggingFace Hub ({cls.metadata.dataset['path']}) and HF_HUB_OFFLINE=1"
    return None


def family(cls: type) -> str:
    """``authorship``, ``verification``, ``quotes``, ``ir-triplets`` (by protocol class), else ``other``."""
    from mteb_contrastive.protocols.author_retrieval import AbsTaskAuthorRetrieval
    from mteb_contrastive.protocols.ir_triplets import AbsTaskIRTriplets
    from mteb_contrastive.protocols.pair_classification import AbsTaskPairsClassification
    from mteb_contrastive.protocols.quote_retrieval import AbsTaskQuoteRetrieval
    from mteb_contrastive.protocols.triplet_classification import AbsTaskTripletClassification
    from mteb_contrastive.protocols.verification import AbsTaskVerification

    if issubclass(cls, AbsTaskIRTriplets):
        return "ir-triplets"
    if issubclass(cls, (AbsTaskAuthorRetrieval, AbsTaskTripletClassification, AbsTaskPairsClassification)):
        return "authorship"
    if issubclass(cls, AbsTaskVerification):
        return "verification"
    if issubclass(cls, AbsTaskQuoteRetrieval):
        return "quotes"
    return "other"
