"""Start-up hook that registers mteb-contrastive's tasks the moment ``mteb`` is imported.

Run from ``mteb_contrastive_hook.pth`` at interpreter start. It imports nothing heavy: it only
puts a finder on ``sys.meta_path`` that waits for the top-level ``mteb`` package; once mteb's
``__init__`` has run, it calls :func:`mteb_contrastive.plugin.register`. Processes that
never import mteb pay one tuple lookup per import. Set ``MTEB_CONTRASTIVE_DISABLE=1`` to turn
the hook off (mteb then behaves exactly as shipped).
"""

import os
import sys


class _RegisterAfterLoad:
    """Loader proxy: runs the real loader, then registers the extension (once)."""

    def __init__(self, loader, finder):
        self._loader = loader
        self._finder = finder

    def __getattr__(self, name):
        return getattr(self._loader, name)

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        self._finder.uninstall()
        try:
            from mteb_contrastive.plugin import register

            register()
        except Exception as exc:  # never break mteb itself
            import warnings

            warnings.warn(f"mteb-contrastive could not register its tasks: {exc}", stacklevel=2)


class _MtebFinder:
    """Meta-path finder that only reacts to the top-level ``mteb`` import.

    It stays on ``sys.meta_path`` until mteb has really been executed: ``python -m mteb`` first
    asks for mteb's spec without importing it (``runpy`` looks for ``mteb.__main__``), then imports
    the package; a finder that removed itself at the first question missed the import.
    """

    def __init__(self):
        self._busy = False

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "mteb" or self._busy:
            return None
        import importlib.util

        self._busy = True  # the lookup below asks the meta path again, this finder included
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._busy = False
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _RegisterAfterLoad(spec.loader, self)
        return spec

    def uninstall(self):
        if self in sys.meta_path:
            sys.meta_path.remove(self)


def install():
    if (
        os.environ.get("MTEB_CONTRASTIVE_DISABLE") == "1" or "mteb" in sys.modules
    ):  # the name of mteb_contrastive.config.DISABLE_ENV
        return
    if not any(isinstance(f, _MtebFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _MtebFinder())


install()
