"""Command-line processes end without the interpreter's last collections (mteb_contrastive.process_exit).

Each case runs a fresh interpreter whose first ``atexit`` handler (so the last to run) writes
``gc.get_freeze_count()``: above zero exactly when the freeze ran before it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

# registered first, so it runs after every later handler, the freeze included
PROBE = "import atexit, gc, sys\natexit.register(lambda: sys.stdout.write(f'frozen={gc.get_freeze_count() > 0}'))\n"


def _frozen_at_exit(code: str, **env: str) -> bool:
    full = {k: v for k, v in os.environ.items() if k != "MTEB_CONTRASTIVE_FULL_EXIT"} | env
    done = subprocess.run(
        [sys.executable, "-c", PROBE + code], env=full, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.endswith(("frozen=True", "frozen=False")), done.stdout
    return done.stdout.endswith("frozen=True")


def test_the_freeze_runs_at_exit_unless_turned_off():
    code = (
        "from mteb_contrastive.process_exit import skip_final_collection\n"
        "import os\n"
        "asked = [skip_final_collection(), skip_final_collection()]\n"  # twice: registered once
        "assert asked == [os.environ.get('MTEB_CONTRASTIVE_FULL_EXIT') != '1'] * 2, asked\n"
        "assert gc.get_freeze_count() == 0\n"  # nothing frozen before the exit
    )
    assert _frozen_at_exit(code)
    assert not _frozen_at_exit(code, MTEB_CONTRASTIVE_FULL_EXIT="1")


def test_the_handlers_registered_after_it_see_nothing_frozen():
    code = (
        "from mteb_contrastive.process_exit import skip_final_collection\n"
        "skip_final_collection()\n"
        "atexit.register(lambda: sys.stdout.write(f'later={gc.get_freeze_count()} '))\n"
    )
    done = subprocess.run([sys.executable, "-c", PROBE + code], capture_output=True, text=True, timeout=60)
    assert done.stdout.startswith("later=0 ") and done.stdout.endswith("frozen=True"), done.stdout


@pytest.mark.parametrize(("argv0", "frozen"), [("/some/bin/mteb", True), ("analysis.py", False)])
def test_the_mteb_command_ends_so_and_a_library_user_does_not(argv0, frozen):
    # the start-up hook registers on mteb's import; only the `mteb` command's process gets the freeze
    code = f"sys.argv = [{argv0!r}, 'run']\nimport mteb\n"
    assert _frozen_at_exit(code) is frozen


def test_the_mteb_contrastive_command_ends_so():
    code = (
        "sys.argv = ['mteb-contrastive', '--help']\n"
        "from mteb_contrastive.cli.main import main\n"
        "import contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        main(['--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
    )
    assert _frozen_at_exit(code)
