"""How the extension plugs into mteb: registration of tasks, models and benchmarks, and quiet logging.

:func:`register` (:mod:`.registration`) is what the start-up hook (``mteb_contrastive_hook``) and
``import mteb_contrastive`` call.
"""

from __future__ import annotations

from mteb_contrastive.plugin.registration import register

__all__ = ["register"]
