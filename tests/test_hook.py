"""The start-up hook registers the tasks however mteb is started: `import mteb`, the `mteb` script, `python -m mteb`."""

import sys

from conftest import run


def test_python_dash_m_mteb_lists_our_tasks():
    # runpy first asks for mteb's spec without importing it (to find mteb.__main__), then imports it:
    # a hook that unhooked itself at the first question never registered anything.
    r = run([sys.executable, "-m", "mteb", "available-tasks", "--tasks", "CranfieldIRTriplets"], timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "CranfieldIRTriplets" in r.stdout


def test_hook_unhooks_after_mteb_is_imported():
    code = (
        "import sys, mteb; "
        "print(sum(type(f).__name__ == '_MtebFinder' for f in sys.meta_path), "
        "len(mteb.get_tasks(tasks=['CranfieldIRTriplets'])))"
    )
    r = run([sys.executable, "-c", code], timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["0", "1"]
