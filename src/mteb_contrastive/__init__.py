"""mteb-contrastive: research benchmarks (HALvest-Contrastive, PAN verification, QuoteR,
Paragraph Vector IR triplets) as MTEB tasks, with a FAISS-backed retriever.

``import mteb_contrastive`` registers the tasks with mteb (the installed start-up hook does the
same whenever ``mteb`` is imported), so ``mteb.get_task("HALvestRetrieval")`` works.

Exception: inside the ``mteb-contrastive`` command the package does not import mteb (about 5 s);
each subcommand imports what it uses, so ``--help`` and the builders start at once.
"""

__version__ = "0.1.0"

import os as _os
import sys as _sys

if _os.path.basename(_sys.argv[0] if _sys.argv else "") == "mteb-contrastive" and "mteb" not in _sys.modules:
    import mteb_contrastive_hook as _hook

    _hook.install()  # registers on mteb's import, when a subcommand needs mteb
else:
    import mteb as _mteb  # noqa: F401  (the start-up hook registers on this import)

    from mteb_contrastive.plugin import register as _register

    _register()
