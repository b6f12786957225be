"""How a command-line process of ours ends: without the interpreter's last garbage-collection passes.

After the ``atexit`` handlers, CPython clears every module and collects cyclic garbage while doing
so; with mteb, torch and sentence-transformers imported and a model loaded, those passes walk
millions of tracked objects: 2.3-2.5 s of an ``mteb run`` that ends (measured: a process that imports
mteb and sentence-transformers, loads all-MiniLM-L6-v2 and encodes 64 texts; 1.8 s with the imports
alone), during which nothing is computed and ``evaluate`` waits for the exit status. ``gc.freeze()``
(a public function of the standard library, made for ``fork``) moves every tracked object into the
permanent generation, which no collection walks: the same process ends 0.2 s after its handlers.

What this leaves out: ``__del__`` of objects caught in reference cycles at exit (CPython never
promised to run them, ``gc`` documentation); everything closed by reference counting or by an
``atexit`` handler (open files, ``weakref.finalize``, logging's flush, temporary folders) still is.
Files of ours are written whole before the process ends (:mod:`mteb_contrastive.data.atomic`), so no
result depends on finalisation. Set ``MTEB_CONTRASTIVE_FULL_EXIT=1`` (:data:`mteb_contrastive.config.FULL_EXIT_ENV`)
to end as CPython does.
"""

from __future__ import annotations

import atexit
import gc

from mteb_contrastive import config

_installed = False


def skip_final_collection() -> bool:
    """Register ``gc.freeze`` as an ``atexit`` handler (once per process). Handlers run last-in,
    first-out, so every handler registered after this one (the libraries imported later: torch,
    sentence-transformers, tqdm, mteb's own) runs before the freeze, and those registered before it
    (logging's flush) still run after it. Returns whether it is (now) registered: False where
    :data:`mteb_contrastive.config.FULL_EXIT_ENV` is ``1``."""
    global _installed
    if config.full_exit():
        return False
    if not _installed:
        atexit.register(gc.freeze)
        _installed = True
    return True
