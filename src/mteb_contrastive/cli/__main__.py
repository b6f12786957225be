"""``python -m mteb_contrastive.cli ...``: the ``mteb-contrastive`` command."""

import sys

from mteb_contrastive.cli.main import main

sys.exit(main())
