"""Build a PAN-format authorship-verification dataset from an author-labelled corpus of long documents.

Input: documents ``{"id", "author", "text"}`` (one document = one *work*; optional ``"title"``,
``"group"``). The sampler:

* **chunking** -- each document is cut into consecutive, non-overlapping chunks of
  ``chunk_words`` words (whitespace tokens; jieba words / characters in scripts written without
  spaces); a shorter last chunk is kept when it has at least ``min_words`` words
  (a document shorter than ``chunk_words`` gives one chunk when it has at least ``min_words``,
  else none). Chunks are re-joined with single spaces; text in a script written without spaces is cut into substrings
  between jieba words / characters instead.
* **author-disjoint splits** -- authors (not documents) are shuffled with the seed and shared
  out over ``train`` / ``validation`` / ``test`` by ``split_ratios`` (largest remainder),
  separately for authors with at least two works (they alone give same-author pairs) and the
  others, so no author appears in two splits.
* **same-author pairs** (PAN's cross-fandom condition) -- per author with >= 2 works,
  ``pairs_per_author`` pairs of chunks from two *different* works (distinct pairs; fewer when the
  author has fewer).
* **different-author pairs** -- ``n_pos * (1 - positive_ratio) / positive_ratio`` pairs of chunks
  of two different authors of the same split (and, when documents have a ``group``, the same
  group: e.g. genre/language, so negatives are not trivially separable), authors drawn uniformly.
* **determinism** -- one ``random.Random`` seeded from ``(seed, split)``; documents and authors
  in sorted order. Pair ids are UUID5 of (dataset name, split, the two chunk ids).

Output ``<out>/<name>/``: ``<split>/pairs.jsonl`` + ``<split>/truth.jsonl`` (PAN 2020/21 format,
the ``fandoms`` field holds the two works' ids, or their two topics when built with a topic field, so
that the verification protocol's topic-controlled AUC reads the real topics), ``mteb_contrastive.json`` (kind
``pan-verification``; what :func:`mteb_contrastive.sources.pan.folder_info` checks) and a ``README.md`` dataset
card. The folder is written atomically.
"""

from __future__ import annotations

import os
import random
import uuid
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

from mteb_contrastive.data.built_folder import built_folder
from mteb_contrastive.data.content import (
    DUPLICATE_RULES,
    apply_duplicate_rule,
    content_key,
    overlapping_texts,
    shares_topic,
    topic_set,
)
from mteb_contrastive.data.errors import DataError, LineRows, position, where
from mteb_contrastive.data.fields import MISSING, FieldMap, describe, id_value, mapped, name_value, text_value
from mteb_contrastive.data.languages import (
    document_language,
    eltec_language,
    languages_from_rows,
    resolve_languages,
    stated_fallback,
)
from mteb_contrastive.data.normalise import normalise_documents
from mteb_contrastive.data.pan import write_pairs_and_truth
from mteb_contrastive.data.readers import iter_jsonl
from mteb_contrastive.data.text import has_unsegmented_script, word_pieces
from mteb_contrastive.identity import fingerprint, nfc

KIND = "pan-verification"
#: the command that builds this kind, and the data files it writes (:mod:`mteb_contrastive.data.built_folder`)
COMMAND, OUTPUTS = "build-verification", ("*/pairs.jsonl", "*/truth.jsonl")
SPLITS = ("train", "validation", "test")


def chunk_text(text: str, chunk_words: int, min_words: int) -> list[str]:
    """Consecutive chunks of ``chunk_words`` words; a last chunk shorter than ``min_words`` is dropped.

    Spaced scripts: words are whitespace tokens, re-joined with single spaces (runs of whitespace,
    newlines included, become one space). Text containing a script written without spaces
    (Chinese, Japanese, Thai, ...): words are :func:`~mteb_contrastive.data.text.word_spans`
    (jieba words for Han, grapheme clusters for the other unsegmented scripts; punctuation does not
    count) and a chunk is the substring of ``text`` from its first word to the next chunk's first
    word (trimmed; the first chunk starts at the text's start), so no separator is inserted and
    punctuation stays with the words before it. The mode is chosen per text: one character of an
    unsegmented script makes the whole text substring-cut (its whitespace kept as it is).

    Raises:
        ValueError: unless ``1 <= min_words <= chunk_words``.
    """
    if chunk_words < 1 or min_words < 1 or min_words > chunk_words:
        raise ValueError(f"need 1 <= min_words <= chunk_words, got chunk_words={chunk_words}, min_words={min_words}")
    unspaced = has_unsegmented_script(text)
    words = word_pieces(text, words_only=True) if unspaced else text.split()
    chunks = [words[i : i + chunk_words] for i in range(0, len(words), chunk_words)]
    return [("".join(c).strip() if unspaced else " ".join(c)) for c in chunks if len(c) >= min_words]


def _allocate(n: int, ratios: tuple[float, ...]) -> list[int]:
    """Share ``n`` items by ``ratios`` (largest remainder, ties to the earlier split)."""
    total = sum(ratios)
    raw = [n * r / total for r in ratios]
    base = [int(x) for x in raw]
    order = sorted(range(len(ratios)), key=lambda i: (-(raw[i] - base[i]), i))
    for i in order[: n - sum(base)]:
        base[i] += 1
    return base


def topic_value(value: Any) -> str:
    """A topic field's value as one stored label: a string as it is (NFC, stripped), a list (a HAL domain
    set, keywords) as its sorted distinct items joined by ``|``; empty when missing. Labels are kept as
    written (the ``fandoms`` a reader sees); they are compared as topic sets
    (:func:`mteb_contrastive.data.content.topic_set`: NFC, case-folded, ``|`` splitting a label), so
    two documents share a topic when their sets meet (:func:`~mteb_contrastive.data.content.shares_topic`)."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return "|".join(sorted({nfc(str(v).strip()) for v in value if str(v).strip()}))
    return "" if value is None or isinstance(value, bool) else nfc(str(value).strip())


def validate_documents(
    docs: list[dict[str, Any]],
    source: object = "documents",
    *,
    topic_field: str | None = None,
    fields: FieldMap | None = None,
) -> list[dict[str, Any]]:
    """Check documents ``{"id", "author", "text"}`` (optional ``title``, ``group``; with ``topic_field``,
    that field of each row becomes its ``topic``: :func:`topic_value`).

    Raises:
        DataError: missing/empty field (the topic field included when it is asked for), duplicate id
            (names the row and field).
    """
    out, seen = LineRows(lines=getattr(docs, "lines", ())), {}
    fields = fields or FieldMap()
    for i, d in enumerate(docs):
        if topic_field is not None and not topic_value(d.get(topic_field)):
            raise DataError(
                source,
                "missing or empty topic (asked for with --topic-field); give every row one",
                **position(docs, i),
                field=topic_field,
            )
        pos = position(docs, i)
        did = id_value(d.get("id", MISSING), source, pos, fields.column("id", "id"))
        author = name_value(d.get("author", MISSING), source, pos, fields.column("author", "author"))
        text_value(d.get("text", MISSING), source, pos, fields.column("text", "text"))
        if did in seen:
            raise DataError(
                source, f"duplicate id {did!r} (first at {where(docs, seen[did])})", **position(docs, i), field="id"
            )
        seen[did] = i
        out.append(
            {
                "id": did,
                "author": author,
                "text": d["text"],
                "title": str(d.get("title") or ""),
                "group": nfc(str(d.get("group") or "")),
                "language": d.get("language"),
                "topic": topic_value(d.get(topic_field)) if topic_field else "",
            }
        )
    if not out:
        raise DataError(source, "no documents")
    return out


def split_authors(docs: list[dict[str, Any]], split_ratios: tuple[float, float, float], seed: int) -> dict[str, str]:
    """author -> split, authors disjoint (see module docstring)."""
    works = defaultdict(int)
    for d in docs:
        works[d["author"]] += 1
    multi = sorted(a for a, n in works.items() if n >= 2)
    single = sorted(a for a, n in works.items() if n < 2)
    rng = random.Random(f"{seed}-authors")
    rng.shuffle(multi)
    rng.shuffle(single)
    out = {}
    for group in (multi, single):
        start = 0
        for split, k in zip(SPLITS, _allocate(len(group), split_ratios)):
            for a in group[start : start + k]:
                out[a] = split
            start += k
    return out


def sample_split_pairs(
    docs: list[dict[str, Any]],
    chunks: dict[str, list[str]],
    split: str,
    *,
    name: str,
    pairs_per_author: int,
    positive_ratio: float,
    seed: int,
    topic: bool = False,
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Same-author (different works) and different-author pairs of one split's documents.

    Without ``topic``: same-author pairs of two different works, different-author pairs within a
    ``group``. With ``topic`` (every document has a non-empty ``topic``): **topic-controlled**
    pairs, as Kirby's validation pairs (``preprocessing/step4_sample_pairs_val.py:24-31`` with
    ``only_SADF_and_DASF=True``, ``make_balanced=True``; ``helper_functions/resample_pairs.py:351-356,
    365-367`` at commit c7c3b37 of github.com/petekirby/contrastive-av): a same-author pair takes two
    works of **different** topics, a different-author pair two works of the **same** topic (and
    group), so topic works against the label; then, when fewer negatives than the ratio asks for
    could be drawn, positives are dropped (the last drawn) until the ratio holds (the authors'
    balancing: ``n = min(|SA_DF|, |DA_SF|)`` at ratio 0.5; without ``topic`` no positive is
    dropped). A pair whose two chunks have the same content
    (:func:`~mteb_contrastive.data.content.content_key`) is never drawn.

    Returns:
        (rows, counts: ``authors``, ``authors_with_2_works``, ``documents``, ``chunks``, ``pairs``,
        ``same_author``, ``different_author``).
    """
    rng = random.Random(f"{seed}-{split}")
    by_author: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for d in sorted(docs, key=lambda d: d["id"]):
        if chunks[d["id"]]:
            by_author[d["author"]].append(d)
    authors = sorted(by_author)
    rows: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    keys: dict[tuple[str, int], str] = {}

    def same_content(d1: dict, c1: int, d2: dict, c2: int) -> bool:
        for d, c in ((d1, c1), (d2, c2)):
            if (d["id"], c) not in keys:
                keys[(d["id"], c)] = content_key(chunks[d["id"]][c])
        return keys[(d1["id"], c1)] == keys[(d2["id"], c2)]

    def row(d1: dict, c1: int, d2: dict, c2: int, same: bool) -> dict[str, Any]:
        k1, k2 = f"{d1['id']}#{c1}", f"{d2['id']}#{c2}"
        return {
            "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"mteb-contrastive/{name}/{split}/{k1}/{k2}")),
            # PAN's fandom is a topic: the documents' topics when pairs are topic-controlled, else the works
            "fandoms": [d1["topic"], d2["topic"]] if topic else [d1["id"], d2["id"]],
            "pair": [chunks[d1["id"]][c1], chunks[d2["id"]][c2]],
            "same": same,
            "authors": [d1["author"], d2["author"]],
        }

    def pairable(x: dict, y: dict) -> bool:  # topic-controlled positives: two works sharing no topic
        return not shares_topic(x["topic"], y["topic"]) if topic else True

    n_pos = 0
    for a in authors:
        works = by_author[a]
        if len(works) < 2:
            continue
        capacity = sum(
            len(chunks[x["id"]]) * len(chunks[y["id"]])
            for i, x in enumerate(works)
            for y in works[i + 1 :]
            if pairable(x, y)
        )
        want = min(pairs_per_author, capacity)
        got, tries = 0, 0
        while got < want and tries < 50 * want:
            tries += 1
            d1, d2 = rng.sample(works, 2)
            if not pairable(d1, d2):
                continue
            c1, c2 = rng.randrange(len(chunks[d1["id"]])), rng.randrange(len(chunks[d2["id"]]))
            key = tuple(sorted((f"{d1['id']}#{c1}", f"{d2['id']}#{c2}")))
            if key in seen or same_content(d1, c1, d2, c2):
                continue
            seen.add(key)
            rows.append(row(d1, c1, d2, c2, True))
            got += 1
        n_pos += got
    n_neg_target = round(n_pos * (1 - positive_ratio) / positive_ratio) if n_pos else 0
    # negatives: another author of the same group (topic-controlled: a work of the same group and topic)
    by_group: dict[str, list[str]] = defaultdict(list)
    for a in authors:
        by_group[by_author[a][0]["group"]].append(a)
    by_topic: dict[tuple[str, str], dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for a in authors:
        for d in by_author[a]:
            for t in sorted(topic_set(d["topic"])):  # a document is in the cell of each of its topics
                by_topic[(d["group"], t)][a].append(d)
    n_neg, tries = 0, 0
    while n_neg < n_neg_target and tries < 50 * max(n_neg_target, 1):
        tries += 1
        a = rng.choice(authors)
        if topic:
            d1 = rng.choice(by_author[a])
            mine = sorted(topic_set(d1["topic"]))
            if not mine:
                continue
            cell = by_topic[(d1["group"], rng.choice(mine))]
            others = [b for b in cell if b != a]
            if not others:
                continue
            b = rng.choice(others)
            d2 = rng.choice(cell[b])
        else:
            others = [b for b in by_group[by_author[a][0]["group"]] if b != a]
            if not others:
                continue
            b = rng.choice(others)
            d1, d2 = rng.choice(by_author[a]), rng.choice(by_author[b])
        c1, c2 = rng.randrange(len(chunks[d1["id"]])), rng.randrange(len(chunks[d2["id"]]))
        key = tuple(sorted((f"{d1['id']}#{c1}", f"{d2['id']}#{c2}")))
        if key in seen or same_content(d1, c1, d2, c2):
            continue
        seen.add(key)
        pair = [(d1, c1), (d2, c2)]
        rng.shuffle(pair)
        rows.append(row(pair[0][0], pair[0][1], pair[1][0], pair[1][1], False))
        n_neg += 1
    if topic and n_neg < n_neg_target:  # balance as asked: keep the first-drawn positives
        keep_pos = round(n_neg * positive_ratio / (1 - positive_ratio))
        pos_rows = [r for r in rows if r["same"]][keep_pos:]
        drop = {r["id"] for r in pos_rows}
        rows = [r for r in rows if r["id"] not in drop]
        n_pos = keep_pos
    rng.shuffle(rows)
    counts = {
        "authors": len(authors),
        "authors_with_2_works": sum(len(by_author[a]) >= 2 for a in authors),
        "documents": sum(len(v) for v in by_author.values()),
        "chunks": sum(len(chunks[d["id"]]) for v in by_author.values() for d in v),
        "pairs": len(rows),
        "same_author": n_pos,
        "different_author": n_neg,
    }
    return rows, counts


def check_splits_disjoint(
    content: dict[str, list[dict[str, Any]]], split_docs: dict[str, list[dict[str, Any]]], source: object
) -> None:
    """No text of a validation or test pair occurs (by content) inside a document of another split.

    Raises:
        DataError: naming the split, how many of its pairs hold such a text, and the other split.
    """
    for split in ("validation", "test"):
        rows = content.get(split) or []
        texts = {t for r in rows for t in r["pair"]}
        for other in SPLITS:
            if other == split or not split_docs.get(other):
                continue
            found = overlapping_texts(texts, [d["text"] for d in split_docs[other]])
            if found:
                n = sum(any(content_key(t) in found for t in r["pair"]) for r in rows)
                raise DataError(
                    source,
                    f"{n} of the {len(rows)} {split} pairs hold a text that also occurs inside a {other} document "
                    "(the same text under two authors, or one text inside another); remove the copies or pass "
                    "--duplicates collapse",
                )


def build_verification_dataset(
    docs: list[dict[str, Any]],
    out_dir: str | os.PathLike,
    name: str,
    *,
    chunk_words: int = 1000,
    min_words: int | None = None,
    split_ratios: tuple[float, float, float] = (0.4, 0.3, 0.3),
    pairs_per_author: int = 20,
    positive_ratio: float = 0.5,
    seed: int = 0,
    languages: tuple[str, ...] | None = None,
    source: str = "",
    description: str = "",
    normalise: str | None = None,
    duplicates: str = "refuse",
    topic_field: str | None = None,
    force: bool = False,
) -> Path:
    """Write a PAN-format verification dataset ``<out_dir>/<name>`` (atomically).

    Args:
        docs: documents ``{"id", "author", "text"}`` (+ optional ``title``, ``group``).
        name: letters and digits; the task is ``<name>Verification``.
        chunk_words: chunk length in whitespace tokens; ``min_words``: shortest chunk kept
            (default ``chunk_words // 2``).
        split_ratios: shares of authors for train / validation / test (train may be 0).
        pairs_per_author: same-author pairs per author with >= 2 works.
        positive_ratio: share of same-author pairs in each split (0.5 = balanced).
        languages: mteb language-script codes of the texts; default: the documents' ``language``
            fields (a contradicting value raises); when neither says, eng-Latn with a warning
            (:mod:`mteb_contrastive.data.languages`).
        normalise: ``"edition"`` removes edition artefacts from the texts before chunking
            (:func:`mteb_contrastive.data.normalise.normalise_documents`); recorded in the
            parameters only when given, so a build without it keeps its build id.
        duplicates: a text under two authors: ``"refuse"`` (an error naming both) or ``"collapse"``
            (:mod:`mteb_contrastive.data.content`: authors sharing a text are merged), applied before
            the author split, so the splits are disjoint by content.
        topic_field: the field the documents' ``topic`` came from
            (``load_documents(kind, path, topic_field=...)``): the pairs are then topic-controlled
            (:func:`sample_split_pairs`); without it, the dataset says its pairs are not.

    Raises:
        DataError: bad documents; a text under two authors (``duplicates="refuse"``); a validation
            or test chunk found inside a document of another split (content shared across splits);
            validation/test got no same-author or no different-author pair (too few authors with
            two works for the ratios, or no cross-topic same-author / same-topic different-author pair).
        ValueError: bad name or parameters.
    """
    folder = built_folder(out_dir, name, KIND, COMMAND, OUTPUTS, force=force)
    folder.check()  # the output place, before any work
    if len(split_ratios) != 3 or any(r < 0 for r in split_ratios) or split_ratios[1] <= 0 or split_ratios[2] <= 0:
        raise ValueError(
            "split_ratios must be three shares (train, validation, test) "
            f"with validation and test > 0, got {split_ratios}"
        )
    if not 0 < positive_ratio < 1:
        raise ValueError(f"positive_ratio must be in (0, 1), got {positive_ratio}")
    if pairs_per_author < 1:
        raise ValueError(f"pairs_per_author must be >= 1, got {pairs_per_author}")
    if duplicates not in DUPLICATE_RULES:
        raise ValueError(f"duplicates must be one of {DUPLICATE_RULES}, got {duplicates!r}")
    min_words = min_words or max(1, chunk_words // 2)
    docs = normalise_documents(
        validate_documents(docs, source or name, topic_field="topic" if topic_field else None), normalise
    )
    docs, dup_report = apply_duplicate_rule(
        docs, duplicates, source or name, option="--duplicates collapse (build-verification)"
    )
    languages = stated_fallback(
        resolve_languages(
            languages_from_rows(docs, source or name), languages, source=source or name, option="languages"
        ),
        ["eng-Latn"],
        source=source or name,
        option="languages",
    )
    chunks = {d["id"]: chunk_text(d["text"], chunk_words, min_words) for d in docs}
    assignment = split_authors([d for d in docs if chunks[d["id"]]], split_ratios, seed)
    params = {
        "chunk_words": chunk_words,
        "min_words": min_words,
        "split_ratios": list(split_ratios),
        "pairs_per_author": pairs_per_author,
        "positive_ratio": positive_ratio,
        "seed": seed,
    }
    if normalise is not None:  # only when used: a build without it keeps its build id
        params["normalise"] = normalise
    if duplicates != "refuse":
        params["duplicates"] = duplicates
    if topic_field:
        params["topic_field"] = topic_field
    counts: dict[str, dict[str, int]] = {}
    splits = []
    content = {}
    with folder.staged() as tmp:
        for split in SPLITS:
            split_docs = [d for d in docs if assignment.get(d["author"]) == split]
            rows, c = sample_split_pairs(
                split_docs,
                chunks,
                split,
                name=name,
                pairs_per_author=pairs_per_author,
                positive_ratio=positive_ratio,
                seed=seed,
                topic=bool(topic_field),
            )
            if split != "train" and (c["same_author"] == 0 or c["different_author"] == 0):
                why = "; topic-controlled: same-author pairs need two topics, negatives one" if topic_field else ""
                raise DataError(
                    source or name,
                    f"split {split}: {c['same_author']} same-author and {c['different_author']} different-author "
                    f"pairs; both are needed (more authors with two works, or other split_ratios{why})",
                )
            if not rows:
                continue
            write_pairs_and_truth(tmp / split, rows)
            counts[split] = c
            splits.append(split)
            content[split] = rows
        check_splits_disjoint(
            content, {s: [d for d in docs if assignment.get(d["author"]) == s] for s in SPLITS}, source or name
        )
        # the revision is the content: every pair's texts, ids and labels, the parameters, the languages
        build_id = fingerprint(KIND, params, list(languages), content)
        info = {
            "kind": KIND,
            "name": name,
            "description": description,
            "languages": list(languages),
            "splits": splits,
            "counts": counts,
            "skipped_documents_too_short": sum(1 for d in docs if not chunks[d["id"]]),
            "duplicates": dup_report,
            "topic_controlled": bool(topic_field),
            "source": source,
            "params": params,
            "build_id": build_id,
        }
        folder.write_info(tmp, info, _card(info))
    return folder.path


def _card(info: dict[str, Any]) -> str:
    p = info["params"]
    lines = [
        f"# {info['name']} (PAN-format authorship verification)",
        "",
        info["description"] or "",
        "",
        f"- Source: {info['source']}",
        f"- Languages: {', '.join(info['languages'])}; build id {info['build_id']}",
        f"- Built by `mteb-contrastive build-verification`: chunks of {p['chunk_words']} whitespace tokens "
        "(last chunk kept",
        f"  when >= {p['min_words']} tokens); authors shared out over train/validation/test by {p['split_ratios']} "
        "(no author",
        f"  in two splits); up to {p['pairs_per_author']} same-author pairs per author "
        "with >= 2 works, the two chunks from",
        "  different works (cross-fandom); different-author pairs so that same-author "
        f"pairs are {p['positive_ratio']:.0%} of",
        f"  each split; seed {p['seed']}. {info['skipped_documents_too_short']} "
        "documents were too short for one chunk.",
        (
            f"- Topic-controlled (field `{p['topic_field']}`): same-author pairs from two different topics, "
            "different-author pairs from one topic (Kirby's validation pairs)."
            if info.get("topic_controlled")
            else "- Not topic-controlled: no topic field was given (a pair's topic is not set against its label)."
        ),
        f"- Texts compared by content (NFC, whitespace-normalised): {info['duplicates']['rule']}; "
        f"{info['duplicates']['rows_dropped']} of {info['duplicates']['rows']} rows dropped as copies.",
        "- Format: PAN 2020/21 -- `<split>/pairs.jsonl` `{id, fandoms, pair}` "
        "and `<split>/truth.jsonl` `{id, same, authors}`;",
        (
            "  `fandoms` holds the two source works' topics."
            if info.get("topic_controlled")
            else "  `fandoms` holds the ids of the two source works."
        ),
        "- Task: `<name>Verification` (set `MTEB_CONTRASTIVE_VERIFICATION` to this "
        "folder or its parent): cosine per pair,",
        "  calibration (threshold, Platt, abstention) fitted on validation, PAN metrics on test.",
        "",
        "| split | authors | authors with >= 2 works | documents | chunks | pairs | same-author | different-author |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for split, c in info["counts"].items():
        lines.append(
            f"| {split} | {c['authors']} | {c['authors_with_2_works']} | {c['documents']} | {c['chunks']} "
            f"| {c['pairs']} | {c['same_author']} | {c['different_author']} |"
        )
    return "\n".join(lines) + "\n"


# --- source corpora -------------------------------------------------------------------------


def eltec_documents(path: str | os.PathLike, topic_field: str | None = None) -> list[dict[str, Any]]:
    """ELTeC novels (``eltec/eng_novels.jsonl.gz``: ``id``, ``author``, ``title``, ``text``): one novel = one work.

    Language: the row's ``language`` when present, else the ELTeC id's collection prefix
    (``ENG18400_Trollope`` -> eng, ``FRA...`` -> fra, ``HU03130`` -> hun) in the script of the
    novel's text (:func:`~mteb_contrastive.data.languages.document_language`: the two Latin-script
    Serbian novels are ``srp-Latn``, the others ``srp-Cyrl``).

    Raises:
        DataError: a row without ``id``, ``author`` or ``text``.
    """
    docs = LineRows()
    for n, obj in iter_jsonl(path):
        for f, check in (("id", id_value), ("author", name_value), ("text", text_value)):
            check(obj.get(f, MISSING), path, {"line": n}, f)
        docs.lines.append(n)
        docs.append(
            {
                **obj,
                "id": obj["id"],
                "author": obj["author"],
                "title": obj.get("title", ""),
                "text": obj["text"],
                "language": obj.get("language") or document_language(eltec_language(obj["id"]), obj["text"]),
            }
        )
    return validate_documents(docs, path, topic_field=topic_field)


def pan14_documents(path: str | os.PathLike, topic_field: str | None = None) -> list[dict[str, Any]]:
    """PAN 2014 known documents (``pan/pan14_known.jsonl.gz``): author = problem, work = file, group = genre.

    PAN publishes no author ids: different problems are taken as different authors (noisy
    negatives, see the data README), and problems reuse texts (218 texts under two or more
    problems): a builder or ``train`` refuses them unless told to collapse them
    (:mod:`mteb_contrastive.data.content`). Negatives are drawn within a genre (and so a language).

    Raises:
        DataError: a row without ``problem``, ``file`` or ``text``.
    """
    docs = LineRows()
    for n, obj in iter_jsonl(path):
        for f, check in (("problem", name_value), ("file", id_value), ("text", text_value)):
            check(obj.get(f, MISSING), path, {"line": n}, f)
        docs.lines.append(n)
        docs.append(
            {
                **obj,
                "id": str(obj["file"]).removesuffix(".txt"),
                "author": obj["problem"],
                "group": obj.get("genre", ""),
                "text": obj["text"],
                "language": obj.get("language"),
            }
        )
    return validate_documents(docs, path, topic_field=topic_field)


def corpus_documents(
    path: str | os.PathLike, topic_field: str | None = None, fields: FieldMap | None = None
) -> list[dict[str, Any]]:
    """A generic JSONL corpus ``{"id", "author" | "authors": [one], "text"}`` (optional ``title``, ``group``);
    ``fields``: the columns holding them when named otherwise (``--text-field``, ``--author-field``, ``--id-field``).

    Raises:
        DataError: a row without an id, a single author or a text; a named field no row has.
    """
    docs = LineRows()
    fields = replace(fields or FieldMap(), topic=topic_field)
    for n, obj in mapped(iter_jsonl(path), fields, path):
        author = obj.get("author")
        if author is None and isinstance(obj.get("authors"), list):
            if len(obj["authors"]) != 1:
                raise DataError(
                    path,
                    f"verification needs exactly one author per document, found {describe(obj['authors'])}",
                    line=n,
                    field=fields.column("author", "authors"),
                )
            author = obj["authors"][0]
        docs.append({**obj, "author": author})
        docs.lines.append(n)
    return validate_documents(docs, path, topic_field=topic_field, fields=fields)
