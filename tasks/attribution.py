"""Authorship-attribution tasks made from folders built by ``mteb-contrastive build-attribution``.

A folder named ``N`` (kind ``attribution``, found through ``MTEB_CONTRASTIVE_DATASETS``) becomes
two tasks, one benchmark ``NAttribution``:

* ``NAttribution`` -- closed-set attribution by leave-one-text-out: macro-F1 (PAN 2019 rule, main
  score) and accuracy with their chance levels and intervals by text; calibrated, ranked candidates
  for each questioned text in the predictions; with ``--open-set``, "none of the candidates" below a
  validated threshold (:mod:`mteb_contrastive.protocols.attribution`);
* ``NAuthorClustering`` -- the texts of the authors with two or more clustered by mteb's K-means,
  V-measure beside its exact chance level (:mod:`mteb_contrastive.protocols.author_clustering`).

The classes are made per folder by :func:`mteb_contrastive.catalog.folder_task_classes` from the
declarations below (the folder adds name, dataset path and revision, languages).
"""

from __future__ import annotations

from mteb_contrastive.protocols.attribution import AbsTaskAttribution
from mteb_contrastive.protocols.author_clustering import AbsTaskAuthorClustering

#: TaskMetadata fields shared by the tasks of an attribution folder
METADATA = dict(
    reference=None,
    category="t2t",
    modalities=["text"],
    eval_splits=["test"],
    domains=["Written"],
    license="not specified",
    annotations_creators="derived",
    dialect=[],
    sample_creation="found",
    bibtex_citation="",
)

#: task name suffix -> (protocol, mteb task type, main score, what the description adds)
TASKS = {
    "Attribution": (
        AbsTaskAttribution,
        "Classification",
        "macro_f1",
        "closed-set authorship attribution, leave-one-text-out: each known text of an author with two or more "
        "attributed by its mean cosine to each candidate's other known texts; macro-F1 with the PAN 2019 rule (main "
        "score), tie-aware accuracy, chance levels, bootstrap intervals by text; temperature-calibrated candidate "
        "probabilities for the questioned texts.",
    ),
    "AuthorClustering": (
        AbsTaskAuthorClustering,
        "Clustering",
        "v_measure",
        "author clustering: one vector per text (authors with two or more), mteb's MiniBatchKMeans with K = the "
        "number of authors, V-measure beside its exact chance level (random partition with the authors' sizes).",
    ),
}
