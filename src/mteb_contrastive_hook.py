"""Start-up hook that registers mteb-contrastive's tasks the moment ``mteb`` is imported.

Run from ``mteb_contrastive_hook.pth`` at interpreter start. It imports nothing heavy: it only
puts a finder on ``sys.meta_path`` that waits for the top-level ``mteb`` package; once mteb's
``__init__`` has run, it calls :func:`mteb_contrastive.registration.register`. Processes that
never import mteb pay one tuple lookup per import. Set ``MTEB_CONTRASTIVE_DISABLE=1`` to turn
the hook off (mteb then behaves exactly as shipped).
"""

import os
import sys


class _RegisterAfterLoad:
    """Loader proxy: runs the real loader, then registers the extension."""

    def __init__(self, loader):
        self._loader = loader

    def __getattr__(self, name):
        return getattr(self._loader, name)

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        try:
            from mteb_contrastive.registration import register

            register()
        except Exception as exc:  # never break mteb itself
            import warnings

            warnings.warn(f"mteb-contrastive could not register its tasks: {exc!r}", stacklevel=2)


class _MtebFinder:
    """Meta-path finder that only reacts to the top-level ``mteb`` import."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "mteb":
            return None
        sys.meta_path.remove(self)  # one shot; also avoids recursion below
        import importlib.util

        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _RegisterAfterLoad(spec.loader)
        return spec


def install():
    if os.environ.get("MTEB_CONTRASTIVE_DISABLE") == "1" or "mteb" in sys.modules:
        return
    if not any(isinstance(f, _MtebFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _MtebFinder())


install()
