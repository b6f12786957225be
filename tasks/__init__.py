"""Task declarations, one module per benchmark family: metadata + protocol + where the data is.

Finding folders, checking and building data and making the per-folder classes live in
:mod:`mteb_contrastive.registry`.
"""

from __future__ import annotations

from mteb_contrastive.registry import all_task_classes  # noqa: F401  (the list mteb registers)
