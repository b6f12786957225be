"""Author-labelled document tables for training, validation pairs, and random span rotation.

Documents ``{"id", "author", "text"[, "group", "title"]}`` come from
:func:`mteb_contrastive.data.documents.load_documents` (corpus, eltec, pan14, taln, pan-folder).

Documents are rows, not fixed pairs (Kirby's recipe): a batch draws authors and two documents of
each (:mod:`mteb_contrastive.training.sampler`). Authors with a single document cannot give a
positive pair: they are skipped and counted (:func:`eligible_authors`), never paired with
themselves.

:func:`rotate_span` is the recipe's data augmentation: start at a random word boundary, wrap
around to the beginning, then truncate to the context length (Kirby, "random text-span
rotation"; without it the paper's ablation drops from 0.861 to 0.713 overall).
"""

from __future__ import annotations

import logging
import os
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

from mteb_contrastive.data.documents import DOCUMENT_SOURCES
from mteb_contrastive.data.errors import DataError
from mteb_contrastive.data.pan import load_split
from mteb_contrastive.data.text import has_unsegmented_script, word_pieces
from mteb_contrastive.data.verification_builder import chunk_text, sample_split_pairs, split_authors

logger = logging.getLogger(__name__)

SOURCES = tuple(DOCUMENT_SOURCES)


class TrainingDataError(DataError):
    """Bad training data or options (names the source and, where it applies, row and field)."""


def held_out_authors(folder: str | os.PathLike, splits: tuple[str, ...] = ("validation", "test")) -> set[str]:
    """Authors named in the truth files of ``splits`` of a PAN-format folder (to keep out of training)."""
    out: set[str] = set()
    for split in splits:
        if (Path(folder) / split / "truth.jsonl").is_file():
            for r in load_split(folder, split):
                out.update(str(a) for a in (r.get("authors") or []))
    return out


def eligible_authors(docs: list[dict[str, Any]]) -> tuple[dict[str, list[int]], int]:
    """author -> row indices of its documents, for authors with >= 2 documents; and how many authors were skipped.

    Authors with one document give no positive pair (a text is never paired with itself): they
    are skipped and counted (logged as a warning).
    """
    by_author: dict[str, list[int]] = defaultdict(list)
    for i, d in enumerate(docs):
        by_author[d["author"]].append(i)
    keep = {a: ix for a, ix in sorted(by_author.items()) if len(ix) >= 2}
    skipped = len(by_author) - len(keep)
    if skipped:
        logger.warning(
            "%d of %d authors have a single document: skipped (a text is never paired with itself)",
            skipped,
            len(by_author),
        )
    return keep, skipped


def rotate_span(text: str, rng: random.Random, max_words: int | None = None, rotate: bool = True) -> str:
    """Kirby's random span rotation of one text (applied at every draw).

    The text's whitespace words ``w_0 .. w_{n-1}``; a start ``k`` uniform in ``[0, n)``; the result is
    ``w_k .. w_{n-1} w_0 .. w_{k-1}`` joined by single spaces, cut to its first ``max_words`` words
    (the tokenizer then truncates to the context length; every word is at least one token, so
    cutting at ``max_words = context length`` changes nothing the model sees). ``rotate=False``
    keeps ``k = 0`` (the beginning of the text: the paper's ablation without rotation).

    Without a cut, the rotated text holds exactly the multiset of the input's words.

    A text in a script written without spaces (Chinese, Japanese, Thai, ...) has no whitespace
    words to rotate: its words are :func:`~mteb_contrastive.data.text.word_spans` (jieba words,
    characters, punctuation runs), each kept with the characters up to the next word, and the
    rotation and the cut join these pieces as they are (no separator inserted).
    """
    unspaced = has_unsegmented_script(text)
    words = word_pieces(text) if unspaced else text.split()
    if rotate and len(words) > 1:
        k = rng.randrange(len(words))
        words = words[k:] + words[:k]
    if max_words is not None:
        words = words[:max_words]
    return "".join(words).strip() if unspaced else " ".join(words)


def split_documents_by_author(
    docs: list[dict[str, Any]], validation_share: float, seed: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(train docs, validation docs), authors disjoint: a ``validation_share`` of the eligible authors.

    Uses :func:`mteb_contrastive.data.verification_builder.split_authors` (authors with >= 2
    documents and the others shared out separately, seeded).

    Raises:
        TrainingDataError: the share leaves validation without an author with two documents
            (no same-author validation pair), or training without one.
    """
    if not 0 < validation_share < 1:
        raise TrainingDataError("--validation-share", f"must be in (0, 1), got {validation_share}")
    assignment = split_authors(docs, (1 - validation_share, validation_share, 0.0), seed)
    train = [d for d in docs if assignment[d["author"]] == "train"]
    val = [d for d in docs if assignment[d["author"]] == "validation"]
    for name, part in (("validation", val), ("training", train)):
        counts: dict[str, int] = defaultdict(int)
        for d in part:
            counts[d["author"]] += 1
        if not any(n >= 2 for n in counts.values()):
            raise TrainingDataError(
                "--validation-share",
                f"{validation_share} leaves the {name} part without an author with two documents "
                f"({len(counts)} authors); use another share or more data",
            )
    return train, val


def validation_pairs(
    docs: list[dict[str, Any]], *, max_words: int, pairs_per_author: int = 4, seed: int = 0
) -> list[dict[str, Any]]:
    """Balanced same-/different-author validation pairs of held-out authors' documents.

    Each document is cut into chunks of ``max_words`` words
    (:func:`~mteb_contrastive.data.verification_builder.chunk_text`, last chunk kept when at least
    half as long) and pairs are drawn by
    :func:`~mteb_contrastive.data.verification_builder.sample_split_pairs` (same-author pairs from
    two different documents, different-author pairs within a group, 50 % positives).

    Returns:
        rows ``{"pair": [t1, t2], "same": bool, "authors": [a1, a2], ...}``.

    Raises:
        TrainingDataError: no same-author or no different-author pair (too few held-out authors).
    """
    chunks = {
        d["id"]: chunk_text(d["text"], max_words, max(1, max_words // 2))
        or [rotate_span(d["text"], random.Random(0), max_words, rotate=False)]
        for d in docs
    }
    rows, counts = sample_split_pairs(
        docs,
        chunks,
        "validation",
        name="training-validation",
        pairs_per_author=pairs_per_author,
        positive_ratio=0.5,
        seed=seed,
    )
    if counts["same_author"] == 0 or counts["different_author"] == 0:
        raise TrainingDataError(
            "validation",
            f"{counts['same_author']} same-author and {counts['different_author']} different-author pairs "
            f"from {counts['authors']} held-out authors: both are needed (more validation authors with two documents)",
        )
    return rows
