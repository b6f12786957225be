"""The batches of Kirby's contrastive recipe: pytorch-metric-learning's ``MPerClassSampler``, m = 2.

What the authors run (github.com/petekirby/contrastive-av, ``data/distributed_sampler.py:7-19``,
``data/pan_data.py:79-93``; ``pytorch_metric_learning.samplers.MPerClassSampler`` 2.9.0):

* an epoch is ``floor(documents / batch_size)`` batches (``num_samples``, ``:11``; the short rest dropped);
* **for each batch afresh**, ``batch_size / 2`` distinct authors are drawn uniformly among *all*
  authors (the library shuffles its label list before every batch), so an author can be in several
  batches of an epoch and others in none, but never twice in one batch;
* each drawn author gives two documents: two different ones when it has two or more, **the same one
  twice when it has one** (the library's ``safe_random_choice``); the collator then rotates each
  slot independently, so a single-document author's positive pair is two rotations of one text.

:class:`AuthorBatchSampler` is a sentence-transformers batch sampler
(``sentence_transformers.base.sampler.DefaultBatchSampler``, given to
``SentenceTransformerTrainingArguments(batch_sampler=...)`` through :func:`author_batch_sampler`)
that runs the library's sampler itself, with the global numpy generator it draws from seeded by
``(seed, epoch)`` for the duration of the draw (and restored after), so every epoch is reproducible
and different. A batch is the index list ``[a1_doc, a1_doc', a2_doc, a2_doc', ...]``.

:class:`SupConCollator` turns a batch into one ``text`` column (all ``2B`` texts, each rotated by
:func:`~mteb_contrastive.training.data.rotate_span` at every draw) and its ``label`` column (the
author's number): what the SupCon loss reads (:mod:`mteb_contrastive.training.supcon`), every
text an anchor (``data/contrastive_collate.py:42-53``).
"""

from __future__ import annotations

import abc
import random
from collections.abc import Iterator
from typing import Any

import numpy as np
from pytorch_metric_learning.samplers import MPerClassSampler
from sentence_transformers.base.sampler import DefaultBatchSampler

from mteb_contrastive.training.data import TrainingDataError, rotate_span

#: documents per author per batch (every config's ``m: 2``)
M_PER_AUTHOR = 2


def check_batch(batch_size: int, n_authors: int, n_documents: int) -> None:
    """Raises TrainingDataError unless the recipe's batches can be drawn (even size >= 4, at most twice
    the authors, at most the documents)."""
    if batch_size < 4 or batch_size % 2:
        raise TrainingDataError(
            "--batch-size",
            f"must be an even number of texts >= 4 (two per author, at least two authors), got {batch_size}",
        )
    if batch_size // 2 > n_authors:
        raise TrainingDataError(
            "--batch-size",
            f"{batch_size} texts need {batch_size // 2} distinct authors per batch but the training documents have "
            f"{n_authors} authors; use --batch-size <= {2 * n_authors}",
        )
    if batch_size > n_documents:
        raise TrainingDataError(
            "--batch-size",
            f"an epoch is floor(documents / batch) batches: {n_documents} documents give none of {batch_size}; "
            f"use --batch-size <= {n_documents}",
        )


class AuthorBatchSampler(DefaultBatchSampler):
    """``floor(documents / batch_size)`` batches of ``batch_size / 2`` fresh authors x 2 documents (module docstring).

    Args:
        dataset: documents with an ``author`` column.
        batch_size: texts per batch (even, >= 4, <= 2 x authors, <= documents).

    Raises:
        TrainingDataError: a batch size the data cannot fill (:func:`check_batch`).
    """

    def __init__(
        self,
        dataset: Any,
        batch_size: int,
        drop_last: bool = False,
        valid_label_columns: list[str] | None = None,
        generator: Any = None,
        seed: int = 0,
    ) -> None:
        super().__init__(
            dataset,
            batch_size=batch_size,
            drop_last=drop_last,
            valid_label_columns=valid_label_columns,
            generator=generator,
            seed=seed,
        )
        authors = [str(a) for a in dataset["author"]]
        names = sorted(set(authors))
        number = {a: i for i, a in enumerate(names)}
        self.labels = np.array([number[a] for a in authors], dtype=np.int64)
        self.n_authors = len(names)
        check_batch(batch_size, self.n_authors, len(authors))
        self.n_batches = len(authors) // batch_size
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = int(epoch)

    def __len__(self) -> int:
        return self.n_batches

    def __iter__(self) -> Iterator[list[int]]:
        state = np.random.get_state()
        np.random.seed([self.seed, self.epoch])  # the library draws from the global numpy generator
        try:
            order = list(
                MPerClassSampler(
                    self.labels,
                    m=M_PER_AUTHOR,
                    batch_size=self.batch_size,
                    length_before_new_iter=self.n_batches * self.batch_size,
                )
            )
        finally:
            np.random.set_state(state)
        for b in range(self.n_batches):
            yield [int(i) for i in order[b * self.batch_size : (b + 1) * self.batch_size]]


def author_batch_sampler() -> Any:
    """A ``batch_sampler`` for ``SentenceTransformerTrainingArguments`` (picklable)."""
    return AuthorBatchSampler


class RotatingCollator(abc.ABC):
    """Wraps a sentence-transformers data collator: document rows in sampler order are rotated
    (:func:`rotate_span`) and cut, then :meth:`rows` turns them into the columns ``inner`` tokenises.

    Args:
        inner: the trainer's data collator (tokenises the columns).
        max_words: each text is cut before its ``max_words + 1``-th word after rotation (the context
            length: the tokenizer would truncate there anyway); None: no cut.
        rotate: apply the random span rotation (False: the beginning of each text).
        seed: seeds the rotation draws (one ``random.Random`` per collator).
    """

    def __init__(self, inner: Any, *, max_words: int | None, rotate: bool = True, seed: int = 0) -> None:
        self.inner, self.max_words, self.rotate = inner, max_words, bool(rotate)
        self.rng = random.Random(seed)
        self.valid_label_columns = getattr(inner, "valid_label_columns", [])

    @abc.abstractmethod
    def rows(self, texts: list[str], features: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The training rows of one batch of rotated texts (two per author, in sampler order)."""

    def __call__(self, features: list[dict[str, Any]]) -> dict[str, Any]:
        texts = [rotate_span(f["text"], self.rng, self.max_words, self.rotate) for f in features]
        return self.inner(self.rows(texts, features))

    def __getattr__(self, name: str) -> Any:  # the trainer reads attributes of its collator
        return getattr(self.inner, name)


class SupConCollator(RotatingCollator):
    """Document rows in sampler order -> ``{"text", "label"}`` rows: every text with its author's number."""

    def rows(self, texts: list[str], features: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{"text": t, "label": int(f["label"])} for t, f in zip(texts, features)]
