"""The ``mteb-contrastive`` command: one module per group of subcommands.

* :mod:`.main` -- the parser, the dispatch, ``seed-model``, ``build-triplets``, ``build-taln``,
  ``build-ir-triplets``, ``tasks``, ``report``, ``main``;
* :mod:`.evaluate` -- ``evaluate`` (the release evaluation);
* :mod:`.pan` -- ``build-verification``, ``build-pan-benchmarks``, ``pan-score``, ``pan-report``;
* :mod:`.quoter` -- ``build-quoter``;
* :mod:`.train` -- ``train``, ``train-cross-encoder``, ``train-reranker``;
* :mod:`.args` -- the option types and the one-line parser.

The entry point is :func:`mteb_contrastive.cli.main.main`. The top room: each subcommand imports what it uses when it
runs, so ``--help`` and the builders start without importing mteb (about 5 s).
"""
