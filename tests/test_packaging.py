"""`pip install .` (a real wheel, not the editable install) ships the package, tasks/ and the start-up hook."""

import sys
import zipfile

from conftest import REPO, run


def test_wheel_contents(tmp_path):
    r = run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(REPO), "-w", str(tmp_path)], timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    (wheel,) = tmp_path.glob("mteb_contrastive-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {
        "mteb_contrastive_hook.pth",
        "mteb_contrastive_hook.py",
        "mteb_contrastive/tasks/halvest.py",
        "mteb_contrastive/tasks/local.py",
        "mteb_contrastive/plugin/registration.py",
        "mteb_contrastive/catalog.py",
        "mteb_contrastive/plugin/quiet.py",
    } <= names
    assert zipfile.ZipFile(wheel).read("mteb_contrastive_hook.pth").decode().strip() == "import mteb_contrastive_hook"
