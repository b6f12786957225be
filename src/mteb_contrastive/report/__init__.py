"""One reader for every result of the project, and the release-evaluation report built on it.

* :mod:`.reader` -- every score of an mteb ``--output-folder`` (``<model>/<revision>/<task>.json``)
  as flat :class:`~.reader.ScoreRow` records, with the model's identity and the dataset revision;
  per-item scores from a prediction folder (:func:`~.reader.per_item_scores`).
* :mod:`.chance` -- chance levels (random-ranking expectation, 0.5, majority class; the calibrated
  PAN scores' by simulation through the protocol's own calibration, cached per dataset revision).
* :mod:`.compare` -- bootstrap intervals resampling each family's unit of independence, paired
  comparisons (undefined resamples redrawn, the same items only), a paired permutation test, verdicts.
* :mod:`.plots` -- matplotlib figures (main scores, score vs k, ROC / reliability, recall@k, rank
  histograms), one colour per model, chance level and 95% interval on every score.
* :mod:`.environment` -- how the results were computed (device, machine, libraries, wall time).
* :mod:`.write` -- ``report.md`` / ``report.json`` / ``report.csv`` in an output folder, in four steps:
  :mod:`.build` (assemble the typed records of :mod:`.rows`), :mod:`.statistics` (chance level and
  interval per row, comparisons, separability), :mod:`.figures` (which figures), :mod:`.render`
  (Markdown and CSV).
* :mod:`.tables` -- the author table and the PAN table of the command line.

Every table of the project (``mteb-contrastive report``, ``pan-report``, the docs' tables) is
written from :func:`~.reader.read_results`.
"""
