"""Hatchling build hook: ship the mteb start-up hook (a ``.pth`` file and its tiny module).

mteb 2.26 builds its task table from its own package and has no plugin entry point, so the
extension registers its tasks when ``mteb`` is imported. ``mteb_contrastive_hook.pth`` (run
by ``site`` at interpreter start) imports ``mteb_contrastive_hook``, which only installs an
import hook: mteb itself is not imported until something else imports it.
The top-level ``tasks/`` folder ships inside the wheel as ``mteb_contrastive.tasks``.
"""

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version, build_data):
        files = {
            "src/mteb_contrastive_hook.pth": "mteb_contrastive_hook.pth",
            "src/mteb_contrastive_hook.py": "mteb_contrastive_hook.py",
        }
        if version == "editable":
            # the editable wheel puts src/ on sys.path, so the hook module is found there;
            # only the .pth must be installed into site-packages.
            build_data["force_include_editable"]["src/mteb_contrastive_hook.pth"] = "mteb_contrastive_hook.pth"
        else:
            build_data["force_include"].update(files)
