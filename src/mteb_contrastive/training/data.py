"""Author-labelled document tables for training, validation pairs, and Kirby's random span rotation.

Documents ``{"id", "author", "text"[, "group", "title", "topic"]}`` come from
:func:`mteb_contrastive.data.documents.load_documents` (corpus, eltec, pan14, taln, pan-folder).

Documents are rows, not fixed pairs (Kirby's recipe): a batch draws authors and two documents of
each (:mod:`mteb_contrastive.training.sampler`). An author with a single document stays in: its
two slots hold the same document, and its positive pair is two independent rotations of it
(as pytorch-metric-learning's ``MPerClassSampler`` does, ``data/distributed_sampler.py:13`` of
github.com/petekirby/contrastive-av).

:func:`rotate_span` is the recipe's data augmentation (``data/contrastive_collate.py:6-18`` of the
authors' code), applied to every training text at every draw; without it the paper's TinyBERT
drops from 0.861 / 0.863 to 0.713 / 0.740 **validation accuracy / F1** at 6 epochs
(../shared/papers/contrastive-authorship-verification.md, "Main Findings").
"""

from __future__ import annotations

import bisect
import functools
import logging
import os
import random
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import regex

from mteb_contrastive.data.documents import DOCUMENT_SOURCES
from mteb_contrastive.data.errors import DataError
from mteb_contrastive.data.pan import load_split
from mteb_contrastive.data.text import grapheme_floor, grapheme_floors, has_unsegmented_script, word_spans
from mteb_contrastive.data.verification_builder import chunk_text, sample_split_pairs, split_authors

logger = logging.getLogger(__name__)

SOURCES = tuple(DOCUMENT_SOURCES)
_TOKEN = re.compile(r"\S+")
_SPACE = re.compile(" ")
_CLUSTER = regex.compile(r"\X")


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


def author_counts(docs: list[dict[str, Any]]) -> dict[str, int]:
    """``documents``, ``authors`` and ``single_document_authors`` of a training table (the last are
    kept: their positive pair is two rotations of one document)."""
    by_author = author_counts_by_name(docs)
    return {
        "documents": len(docs),
        "authors": len(by_author),
        "single_document_authors": sum(n == 1 for n in by_author.values()),
    }


def keep_authors_with(docs: list[dict[str, Any]], n: int) -> tuple[list[dict[str, Any]], int]:
    """(the documents of the authors with at least ``n`` of them, how many were removed); ``n >= 1``.

    ``n = 1`` (the default of ``train``) keeps everyone, as the authors' sampler does; ``n = 2`` trains
    only on cross-document positives (two texts of one author that are not one text rotated twice).

    Raises:
        TrainingDataError: no author has ``n`` documents.
    """
    per = author_counts_by_name(docs)
    kept = [d for d in docs if per[d["author"]] >= n]
    if not kept:
        raise TrainingDataError(
            "--min-author-documents",
            f"no training author has {n} documents (the most any has is {max(per.values(), default=0)}): "
            "lower it, or add documents",
        )
    return kept, len(docs) - len(kept)


def author_counts_by_name(docs: list[dict[str, Any]]) -> dict[str, int]:
    """author -> number of documents."""
    out: dict[str, int] = defaultdict(int)
    for d in docs:
        out[d["author"]] += 1
    return out


def rotation_starts(text: str) -> list[int]:
    """See :func:`_rotation_starts` (a copy of its cached tuple)."""
    return list(_rotation_starts(text))


@functools.lru_cache(maxsize=4096)
def _rotation_starts(text: str) -> tuple[int, ...]:
    """Offsets where :func:`rotate_span` may start a text, ascending, always with 0.

    Spaced text: the offset after each ASCII space (the authors' only word boundary:
    ``s.rfind(" ", 0, i) + 1``, ``data/contrastive_collate.py:12``; newlines and tabs are not
    boundaries). Text holding a script written without spaces (Chinese, Japanese, Thai, ...): the
    start of each of its :func:`~mteb_contrastive.data.text.word_spans` (jieba words, characters of
    the other unsegmented scripts, spaced words). In both cases only offsets that start a grapheme
    cluster (Unicode UAX #29 ``\\X``, :func:`~mteb_contrastive.data.text.grapheme_starts`) count,
    and a word start inside a cluster moves back to the cluster's start
    (:func:`~mteb_contrastive.data.text.grapheme_floor`),
    so a base character never loses its combining marks (a Thai vowel sign, a Devanagari virama, a
    combining accent after a space).

    O(len(text)) with the clusters found once (:func:`~mteb_contrastive.data.text.grapheme_floors`),
    and cached by text: a training document is rotated at every draw, and recomputing its word
    starts (a jieba pass, the cluster pass) at each draw was most of a training step.
    """
    if has_unsegmented_script(text):
        cand = set(grapheme_floors(text, (a for a, _ in word_spans(text))))
    else:
        # the cluster that starts at the space must end right after it (a space never joins the cluster
        # before it; marks after it join its cluster): the same answer as grapheme_starts, read locally
        cand = {m.end() for m in _SPACE.finditer(text) if _CLUSTER.match(text, m.start()).end() == m.end()}
    return tuple(sorted({0} | {c for c in cand if 0 < c < len(text)}))


def rotate_span(text: str, rng: random.Random, max_words: int | None = None, rotate: bool = True) -> str:
    """Kirby's random span rotation of one text (``data/contrastive_collate.py:6-18``), then a cut.

    1. A character position is drawn uniformly: ``i`` in ``0 .. len(text)`` (the authors draw
       ``torch.randint(len(" " + text))``, ``:10-11``), so a word is chosen with probability
       proportional to its length plus its following space, not uniformly over words.
    2. ``i = 0``, or a position in the first word, leaves the text as it is (the authors' ``i = 0``
       gives ``" " + text + " " + text[:-1]``, the same beginning after truncation; here the text itself).
    3. Otherwise the start moves back to the last :func:`rotation_starts` offset ``b <= i - 1``
       and the text wraps round there (``:12-13``): spaced text becomes
       ``text[b:] + " " + text[:b - 1]`` (the space before ``b`` moves to the join: the result has
       exactly the input's characters); unspaced text ``text[b:] + text[:b]`` (nothing inserted).
       Everything else (newlines, double spaces, punctuation) is untouched.
    4. ``max_words``: the result is cut before its ``max_words + 1``-th word (:func:`cut_words`);
       every word is at least one model token, so a cut at the context length changes nothing the
       model sees, and it spares tokenising whole novels. The authors do not cut (the tokenizer
       truncates, ``:44-51``).

    ``rotate=False`` keeps the beginning (the paper's ablation without rotation).

    Example (the draw ``i`` over "the cat sat", 12 values): ``i`` in 0..4 -> "the cat sat" (5/12),
    5..8 -> "cat sat the" (4/12), 9..11 -> "sat the cat" (3/12).
    """
    if rotate and len(text) > 1:
        i = rng.randrange(len(text) + 1)
        if i > 0:
            starts = _rotation_starts(text)
            b = starts[bisect.bisect_right(starts, i - 1) - 1]
            if b > 0:
                text = text[b:] + text[:b] if has_unsegmented_script(text) else text[b:] + " " + text[: b - 1]
    return cut_words(text, max_words) if max_words is not None else text


def cut_words(text: str, max_words: int) -> str:
    """``text`` up to (not including) its ``max_words + 1``-th word, verbatim otherwise (trailing
    whitespace dropped). Words: whitespace tokens; in text holding an unsegmented script, its
    :func:`~mteb_contrastive.data.text.word_spans`, the cut moved back to a grapheme start."""
    if has_unsegmented_script(text):
        spans = word_spans(text)
        if len(spans) <= max_words:
            return text
        return text[: grapheme_floor(text, spans[max_words][0])].rstrip()
    for n, m in enumerate(_TOKEN.finditer(text)):
        if n == max_words:
            return text[: m.start()].rstrip()
    return text


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


def topic_items(topic: str) -> set[str]:
    """The items of a document's ``topic`` (:func:`~mteb_contrastive.data.verification_builder.topic_value`
    joins a list field -- keywords, a domain set -- by ``|``; a string field is one item); empty for no topic."""
    return {t for t in str(topic or "").split("|") if t}


def hold_out_topics(train: list[dict[str, Any]], held: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """Training documents without any topic of the held-out (validation) documents, and how many were dropped.

    The authors' code splits the fandoms into disjoint train and validation groups before it draws
    documents, so no validation fandom is trained on (``preprocessing/step1_parse_and_split.py:91-102``
    of github.com/petekirby/contrastive-av). Here the validation authors are chosen first (authors
    disjoint), then every training document that shares a topic item (:func:`topic_items`) with a
    validation document is dropped: validation topics are never trained on, and a topic-controlled
    validation pair (same author + other topic vs other author + same topic) cannot be answered by a
    topic seen in training. Documents without a topic are kept. Order is kept.
    """
    topics = {t for d in held for t in topic_items(d.get("topic", ""))}
    kept = [d for d in train if not topic_items(d.get("topic", "")) & topics]
    return kept, len(train) - len(kept)


def validation_pairs(
    docs: list[dict[str, Any]], *, max_words: int, pairs_per_author: int = 4, seed: int = 0, topic: bool = False
) -> list[dict[str, Any]]:
    """Balanced same-/different-author validation pairs of held-out authors' documents.

    Each document is cut into chunks of ``max_words`` words
    (:func:`~mteb_contrastive.data.verification_builder.chunk_text`, last chunk kept when at least
    half as long) and pairs are drawn by
    :func:`~mteb_contrastive.data.verification_builder.sample_split_pairs` (same-author pairs from
    two different documents, different-author pairs within a group, 50 % positives). With
    ``topic`` (documents with a ``topic``, ``train --topic-field``): topic-controlled pairs, same
    author + different topic against different author + same topic, as the authors' validation pairs
    (``preprocessing/step4_sample_pairs_val.py:24-31``). The authors' texts are whole documents
    from their beginning, each document in one pair at most; ours are chunks of the context length.

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
        topic=topic,
    )
    if counts["same_author"] == 0 or counts["different_author"] == 0:
        why = " with two topics" if topic else " with two documents"
        raise TrainingDataError(
            "validation",
            f"{counts['same_author']} same-author and {counts['different_author']} different-author pairs "
            f"from {counts['authors']} held-out authors: both are needed (more validation authors{why})",
        )
    return rows
