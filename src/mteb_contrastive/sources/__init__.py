"""Where a task's data is: one mixin class per kind of source.

A task declaration (``tasks/*.py``) puts one of these before its protocol class. Each answers,
with path and environment checks only (no data read, no network call), two questions for the
task table, the benchmarks and ``mteb-contrastive evaluate``:

* is the data here? :meth:`~.base.DataSource.data_missing` (None, or one line saying what to set);
* where does it come from? :meth:`~.base.DataSource.source_kind` (the task table's words) and
  :meth:`~.base.DataSource.source_location` (the concrete place, for the evaluation plan).

Kinds: the HALvest Hub release (:mod:`.halvest`), PAN folders named by a variable (:mod:`.pan`),
QuoteR files (:mod:`.quoter`), Cranfield built on first load (:mod:`.cranfield`) and folders made
by ``mteb-contrastive build-*`` (:mod:`.folders`).
"""
