"""mteb-contrastive: research benchmarks (HALvest-Contrastive, PAN verification, QuoteR,
Paragraph Vector IR triplets) as MTEB tasks, with a FAISS-backed retriever.

``import mteb_contrastive`` registers the tasks with mteb (the installed start-up hook does the
same whenever ``mteb`` is imported), so ``mteb.get_task("HALvestRetrieval")`` works.
"""

__version__ = "0.1.0"

import mteb as _mteb  # noqa: F401  (the start-up hook registers on this import)

from mteb_contrastive.registration import register as _register

_register()
