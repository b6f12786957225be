"""Two documents per author per batch, no author twice: the batches of Kirby's contrastive recipe.

:class:`AuthorPairBatchSampler` is a sentence-transformers batch sampler
(``sentence_transformers.base.sampler.DefaultBatchSampler``; pass it as
``SentenceTransformerTrainingArguments(batch_sampler=...)`` through :func:`author_pair_sampler`)
over a ``datasets.Dataset`` of documents with an ``author`` column. Each epoch:

1. the eligible authors (>= 2 documents) are shuffled with a generator seeded by
   ``(seed, epoch, pass)`` -- ``passes`` times, each pass a fresh permutation;
2. each pass is cut into batches of ``authors_per_batch`` consecutive authors (so no author is in
   a batch twice); a last batch with fewer authors is kept when it has at least 2 (every row still
   has an in-batch negative), unless ``drop_last``;
3. for each author of a batch, two *different* documents are drawn at random.

A batch is the index list ``[a1_doc, a1_doc', a2_doc, a2_doc', ...]`` (length ``2 x authors``).
:class:`AuthorPairCollator` turns it into the ``anchor`` / ``positive`` columns the
multiple-negatives ranking loss reads (even positions anchor, odd positions positive), applying
:func:`~mteb_contrastive.training.data.rotate_span` to each text at every draw.
"""

from __future__ import annotations

import abc
import random
from collections.abc import Iterator
from typing import Any

import numpy as np
from sentence_transformers.base.sampler import DefaultBatchSampler

from mteb_contrastive.training.data import TrainingDataError, rotate_span


class AuthorPairBatchSampler(DefaultBatchSampler):
    """Batches of ``batch_size // 2`` authors x 2 documents (see module docstring).

    Args:
        dataset: documents with an ``author`` column.
        batch_size: texts per batch (even, >= 4); ``batch_size // 2`` authors per batch.
        passes: how many times each eligible author is drawn per epoch.

    Raises:
        TrainingDataError: odd or too small a batch size, or ``batch_size > 2 x`` eligible authors
            (a batch could not hold distinct authors).
    """

    def __init__(
        self,
        dataset: Any,
        batch_size: int,
        drop_last: bool = False,
        valid_label_columns: list[str] | None = None,
        generator: Any = None,
        seed: int = 0,
        passes: int = 1,
    ) -> None:
        super().__init__(
            dataset,
            batch_size=batch_size,
            drop_last=drop_last,
            valid_label_columns=valid_label_columns,
            generator=generator,
            seed=seed,
        )
        if batch_size < 4 or batch_size % 2:
            raise TrainingDataError(
                "--batch-size",
                f"must be an even number of texts >= 4 (two per author, at least two authors), got {batch_size}",
            )
        by_author: dict[str, list[int]] = {}
        for i, a in enumerate(dataset["author"]):
            by_author.setdefault(str(a), []).append(i)
        self.by_author = {a: ix for a, ix in sorted(by_author.items()) if len(ix) >= 2}
        self.n_skipped_authors = len(by_author) - len(self.by_author)
        self.authors_per_batch = batch_size // 2
        if self.authors_per_batch > len(self.by_author):
            raise TrainingDataError(
                "--batch-size",
                f"{batch_size} texts need {self.authors_per_batch} distinct authors per batch but "
                f"only {len(self.by_author)} authors have two documents; use --batch-size <= {2 * len(self.by_author)}",
            )
        self.passes = int(passes)
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = int(epoch)

    def _batches_per_pass(self) -> int:
        full, rest = divmod(len(self.by_author), self.authors_per_batch)
        return full + (1 if rest >= 2 and not self.drop_last else 0)

    def __len__(self) -> int:
        return self._batches_per_pass() * self.passes

    def __iter__(self) -> Iterator[list[int]]:
        authors = list(self.by_author)
        for p in range(self.passes):
            rng = np.random.default_rng([self.seed, self.epoch, p])
            order = [authors[i] for i in rng.permutation(len(authors))]
            for b in range(self._batches_per_pass()):
                batch = []
                for a in order[b * self.authors_per_batch : (b + 1) * self.authors_per_batch]:
                    i, j = rng.choice(len(self.by_author[a]), size=2, replace=False)
                    batch += [self.by_author[a][i], self.by_author[a][j]]
                yield batch


def author_pair_sampler(passes: int = 1) -> Any:
    """A ``batch_sampler`` callable for ``SentenceTransformerTrainingArguments`` (fixes ``passes``; picklable)."""
    import functools

    return functools.partial(AuthorPairBatchSampler, passes=passes)


class RotatingCollator(abc.ABC):
    """Wraps a sentence-transformers data collator: document rows in sampler order are rotated
    (:func:`rotate_span`) and cut, then :meth:`rows` turns them into the columns ``inner`` tokenises.

    Args:
        inner: the trainer's data collator (tokenises the columns).
        max_words: each text is cut to its first ``max_words`` words after rotation (the context
            length: the tokenizer would truncate there anyway).
        rotate: apply the random span rotation (False: the beginning of each text).
        seed: seeds the rotation draws (one ``random.Random`` per collator).
    """

    def __init__(self, inner: Any, *, max_words: int, rotate: bool = True, seed: int = 0) -> None:
        self.inner, self.max_words, self.rotate = inner, int(max_words), bool(rotate)
        self.rng = random.Random(seed)
        self.valid_label_columns = getattr(inner, "valid_label_columns", [])

    @abc.abstractmethod
    def rows(self, texts: list[str]) -> list[dict[str, Any]]:
        """The training rows of one batch of rotated texts (two per author, in sampler order)."""

    def __call__(self, features: list[dict[str, Any]]) -> dict[str, Any]:
        texts = [rotate_span(f["text"], self.rng, self.max_words, self.rotate) for f in features]
        return self.inner(self.rows(texts))

    def __getattr__(self, name: str) -> Any:  # the trainer reads attributes of its collator
        return getattr(self.inner, name)


class AuthorPairCollator(RotatingCollator):
    """Document rows in sampler order -> anchor/positive rows for sentence-transformers' collator."""

    def rows(self, texts: list[str]) -> list[dict[str, Any]]:
        return [{"anchor": texts[i], "positive": texts[i + 1]} for i in range(0, len(texts) - 1, 2)]
