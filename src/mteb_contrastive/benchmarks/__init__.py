"""The benchmarks: mteb ``Benchmark`` objects, the release-evaluation suite and the task table.

* :mod:`.suites` -- ``mteb-contrastive`` and ``mteb-contrastive-<family>`` for ``mteb run -b``;
* :mod:`.shared_data` -- the benchmarks built from the shared data (TALN, PAN 2014, ELTeC);
* :mod:`.plan` -- what ``mteb-contrastive evaluate`` runs, built from the catalog and the sources;
* :mod:`.task_table` -- the table of tasks (``mteb-contrastive tasks``, the README's table).
"""
