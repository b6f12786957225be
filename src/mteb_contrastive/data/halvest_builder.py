"""Build a HALvest-format triplet dataset from your own author-labelled corpus.

The sampler follows the HALvest-Contrastive authors' code
(``halvesting_contrastive/utils/data/sampler.py``, ``ContrastiveSampler``):

* positive pool of a document = other documents with exactly the same author set;
* negative pool = documents sharing no author with it, restricted to documents with exactly
  the same domain set when domains are given;
* a document with an empty positive or negative pool is skipped (and counted);
* per kept document: ``n_triplets`` positives drawn with replacement, and for each positive
  ``n_triplets`` negatives (so ``n_triplets**2`` triplets); every triplet draws fresh spans;
* a span = ``k`` contiguous sentences at a uniformly random start; a document with at most ``k``
  sentences is used whole.

**Topic-controlled triplets** (with a topic field, ``--topic-field``: any column, read into each
document's ``topics`` by :func:`mteb_contrastive.data.corpus.normalise_topics`): beside the usual
triplets, for every document with topics,

* topic-controlled positive pool = documents with exactly the same author set that share **no**
  topic with it (and have topics);
* topic-controlled negative pool = documents sharing no author with it that share **at least one**
  topic (same domain set when domains are given);
* sampled as above (``n_triplets`` positives, ``n_triplets`` negatives each) when both are non-empty.

So the topic points to the *wrong* candidate: a topic-only scorer gets 0 on them (same author on
another topic vs another author on the same topic: Kirby's validation design, same-author
different-fandom vs different-author same-fandom pairs). They are rows with ``topic_controlled``
true; every row then carries ``query_topics``, ``pos_topics``, ``neg_topics``. The usual rows are
drawn exactly as without a topic field (the topic-controlled ones use a random generator of their
own), and the parameters record ``topic_field`` only when one is given, so a build without it keeps
its build id.

Determinism: one ``random.Random`` per k seeded from (seed, k) (topic-controlled rows: from
(seed, k, "topic")); documents in corpus order.
Output: ``<out>/<name>/base-<k>/test.parquet`` (HALvest triplet schema), ``mteb_contrastive.json``
(what mteb-contrastive reads to make the tasks) and a ``README.md`` dataset card. The folder is
written atomically.
"""

from __future__ import annotations

import json
import os
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

from mteb_contrastive.data.built_folder import built_folder
from mteb_contrastive.data.content import (
    DUPLICATE_RULES,
    collapse_author_sets,
    drop_repeated_texts,
    refuse_label_conflicts,
)
from mteb_contrastive.data.corpus import sentence_offsets, sentence_span
from mteb_contrastive.data.errors import DataError
from mteb_contrastive.data.languages import languages_from_rows, resolve_languages, splitter_language, stated_fallback
from mteb_contrastive.data.normalise import normalise_text
from mteb_contrastive.identity import fingerprint, nfc, nfc_key

KIND = "halvest-triplets"
#: the command that builds this kind, and the data files it writes (:mod:`mteb_contrastive.data.built_folder`)
COMMAND, OUTPUTS = "build-triplets", ("base-*/test.parquet",)


def sample_triplets(
    docs: list[dict[str, Any]],
    k: int,
    *,
    n_triplets: int = 2,
    seed: int = 0,
    language: str | None = "en",
    sentence_cache: dict[str, list[tuple[int, int]]] | None = None,
    topics: bool = False,
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Triplets of k-sentence spans from validated corpus rows (see module docstring).

    Args:
        topics: also sample the topic-controlled triplets (rows need ``topics``); every row then
            has ``query_topics``, ``pos_topics``, ``neg_topics`` and ``topic_controlled``.

    Returns:
        (rows in the HALvest triplet schema, counts: ``documents``, ``skipped_no_positive``,
        ``skipped_no_negative``, ``query_documents``, ``triplets``; with ``topics`` also
        ``topic_controlled_query_documents`` and ``topic_controlled_triplets``)
    """
    if k < 1 or n_triplets < 1:
        raise ValueError(f"k and n_triplets must be >= 1, got k={k}, n_triplets={n_triplets}")
    rng = random.Random(f"{seed}-{k}")
    sentence_cache = {} if sentence_cache is None else sentence_cache
    by_authorset: dict[frozenset, list[int]] = defaultdict(list)
    by_author: dict[str, set[int]] = defaultdict(set)
    by_domainset: dict[frozenset, set[int]] = defaultdict(set)
    use_domains = any(d["domains"] for d in docs)
    # identities compared in NFC (an author in NFC and in NFD is one author)
    for i, d in enumerate(docs):
        by_authorset[nfc_key(d["authors"])].append(i)
        for a in d["authors"]:
            by_author[nfc(a)].add(i)
        by_domainset[nfc_key(d["domains"])].add(i)
    everyone = set(range(len(docs)))

    def span(i: int, rng: random.Random = rng) -> str:
        # a span is a substring of the document: sentences taken by character offsets, so the
        # source's own separators are kept (none between CJK sentences)
        d = docs[i]
        if d["id"] not in sentence_cache:
            sentence_cache[d["id"]] = sentence_offsets(
                d["text"], splitter_language(d.get("language") or language or "en")
            )
        offs = sentence_cache[d["id"]]
        if not offs:
            return d["text"].strip()
        if len(offs) <= k:
            return sentence_span(d["text"], offs, 0, len(offs))
        start = rng.randint(0, len(offs) - k)
        return sentence_span(d["text"], offs, start, k)

    counts = {"documents": len(docs), "skipped_no_positive": 0, "skipped_no_negative": 0, "query_documents": 0}
    rows = []

    def add(i: int, positives: list[int], negatives: list[int], rng: random.Random, controlled: bool) -> None:
        d = docs[i]
        for pi, p in enumerate(positives):
            for n in negatives[pi * n_triplets : (pi + 1) * n_triplets]:
                row = {
                    "query": span(i, rng),
                    "positive": span(p, rng),
                    "negative": span(n, rng),
                    "query_halid": d["id"],
                    "pos_halid": docs[p]["id"],
                    "neg_halids": docs[n]["id"],
                    "query_authorids": list(d["authors"]),
                    "pos_authorids": list(docs[p]["authors"]),
                    "neg_authorids": list(docs[n]["authors"]),
                    "query_domain": list(d["domains"]),
                    "pos_domain": list(docs[p]["domains"]),
                    "neg_domain": list(docs[n]["domains"]),
                    "query_year": str(d.get("year") or ""),
                    "pos_year": str(docs[p].get("year") or ""),
                    "neg_year": str(docs[n].get("year") or ""),
                }
                if topics:
                    row.update(
                        query_topics=list(d["topics"]),
                        pos_topics=list(docs[p]["topics"]),
                        neg_topics=list(docs[n]["topics"]),
                        topic_controlled=controlled,
                    )
                rows.append(row)

    for i, d in enumerate(docs):
        pos_pool = [j for j in by_authorset[nfc_key(d["authors"])] if j != i]
        if not pos_pool:
            counts["skipped_no_positive"] += 1
            continue
        sharing = set().union(*(by_author[nfc(a)] for a in d["authors"]))
        neg_pool = everyone - sharing
        if use_domains:
            neg_pool &= by_domainset[nfc_key(d["domains"])]
        if not neg_pool:
            counts["skipped_no_negative"] += 1
            continue
        neg_pool_sorted = sorted(neg_pool)
        counts["query_documents"] += 1
        positives = rng.choices(pos_pool, k=n_triplets)
        negatives = rng.choices(neg_pool_sorted, k=n_triplets * n_triplets)
        add(i, positives, negatives, rng, False)
    counts["triplets"] = len(rows)
    if topics:
        tc_rng = random.Random(f"{seed}-{k}-topic")
        counts["topic_controlled_query_documents"] = 0
        for i, d in enumerate(docs):
            mine = set(d["topics"])
            if not mine:
                continue
            pos_pool = [
                j
                for j in by_authorset[nfc_key(d["authors"])]
                if j != i and docs[j]["topics"] and not mine & set(docs[j]["topics"])
            ]
            sharing = set().union(*(by_author[nfc(a)] for a in d["authors"]))
            neg_pool = [j for j in range(len(docs)) if j not in sharing and mine & set(docs[j]["topics"])]
            if use_domains:
                neg_pool = [j for j in neg_pool if j in by_domainset[nfc_key(d["domains"])]]
            if not pos_pool or not neg_pool:
                continue
            counts["topic_controlled_query_documents"] += 1
            positives = tc_rng.choices(pos_pool, k=n_triplets)
            negatives = tc_rng.choices(neg_pool, k=n_triplets * n_triplets)
            add(i, positives, negatives, tc_rng, True)
        counts["topic_controlled_triplets"] = len(rows) - counts["triplets"]
    return rows, counts


def build_halvest_dataset(
    docs: list[dict[str, Any]],
    out_dir: str | os.PathLike,
    name: str,
    *,
    ks: tuple[int, ...] = (2, 4, 8),
    language: str | None = None,
    mteb_language: str | None = None,
    n_triplets: int = 2,
    seed: int = 0,
    source: str = "",
    description: str = "",
    topic_field: str | None = None,
    normalise: str | None = None,
    duplicates: str = "refuse",
    force: bool = False,
) -> Path:
    """Write a HALvest-format dataset folder ``<out_dir>/<name>`` (atomically).

    Args:
        docs: validated corpus rows (:func:`mteb_contrastive.data.corpus.read_corpus`).
        name: dataset name, letters and digits (task names are ``<name>AuthorRetrieval`` and
            ``<name>AuthorTripletClassification``).
        ks: sentences per span, one config ``base-<k>`` each.
        language: the texts' language for rows without a ``language`` field (ISO 639-1 such as
            ``fr``, used by the sentence splitter); ``mteb_language``: the tasks' language-script
            code. Both default to the rows' ``language`` fields (:mod:`mteb_contrastive.data.languages`);
            a value contradicting them raises; when neither the rows nor the caller say, eng-Latn
            is used and a warning says so.
        topic_field: the column the rows' ``topics`` were read from (they must have them): adds
            the topic-controlled triplets (module docstring); recorded in the parameters only when given.
        normalise: ``"edition"`` to remove edition artefacts from the texts first
            (:func:`mteb_contrastive.data.normalise.normalise_text`); recorded only when given.
        duplicates: one text (compared by content: NFC, whitespace-normalised) in rows of two
            different author sets: ``"refuse"`` (an error naming both rows) or ``"collapse"`` (one row
            per text with the union of the author and domain sets,
            :func:`mteb_contrastive.data.content.collapse_author_sets`). Either way a text repeated
            with the same author set is kept once (a positive that is the query's own copy would be
            trivial).

    Returns:
        the folder path.

    Raises:
        DataError: a text under two author sets (``duplicates="refuse"``); no triplet could be
            sampled (every document lacked a partner); a topic field whose rows carry no ``topics``.
        ValueError: a bad name, ``normalise`` value or rule.
    """
    folder = built_folder(out_dir, name, KIND, COMMAND, OUTPUTS, force=force)
    folder.check()  # the output place, before any work
    if duplicates not in DUPLICATE_RULES:
        raise ValueError(f"duplicates must be one of {DUPLICATE_RULES}, got {duplicates!r}")
    import datasets

    if normalise is not None:  # first, so that copies the normalisation makes identical are found as copies
        docs = [
            {**d, "text": normalise_text(d["text"], normalise, d.get("language") or mteb_language or language)}
            for d in docs
        ]
    if duplicates == "collapse":
        docs, dup_report = collapse_author_sets(docs)
    else:
        refuse_label_conflicts(
            docs,
            source or name,
            label=lambda d: nfc_key(d["authors"]),
            what="author set",
            option="--duplicates collapse (build-triplets)",
        )
        docs, dropped = drop_repeated_texts(docs, label=lambda d: nfc_key(d["authors"]))
        dup_report = {"rule": "refuse: a text under two author sets is an error", "rows": len(docs) + dropped}
        dup_report["rows_dropped"] = dropped

    given = [mteb_language] if mteb_language else ([language] if language else None)
    langs = stated_fallback(
        resolve_languages(
            languages_from_rows(docs, source or name), given, source=source or name, option="mteb_language"
        ),
        ["eng-Latn"],
        source=source or name,
        option="mteb_language",
    )
    language = language or splitter_language(langs[0])
    if topic_field is not None and not any(d.get("topics") for d in docs):
        raise DataError(source or name, f"topic field {topic_field!r}: no document has topics")
    cache: dict[str, list[tuple[int, int]]] = {}
    configs = {}
    content = {}
    with folder.staged() as tmp:
        for k in ks:
            rows, counts = sample_triplets(
                docs,
                k,
                n_triplets=n_triplets,
                seed=seed,
                language=language,
                sentence_cache=cache,
                topics=topic_field is not None,
            )
            if not rows:
                raise DataError(source or name, f"k={k}: no triplet could be sampled ({counts})")
            (tmp / f"base-{k}").mkdir()
            datasets.Dataset.from_list(rows).to_parquet(str(tmp / f"base-{k}" / "test.parquet"))
            configs[f"base-{k}"] = counts
            content[f"base-{k}"] = rows
        params: dict[str, Any] = {"ks": list(ks), "n_triplets": n_triplets, "seed": seed, "language": language}
        # optional settings join the parameters only when used: a build without them keeps its build id
        if topic_field is not None:
            params["topic_field"] = topic_field
        if normalise is not None:
            params["normalise"] = normalise
        if duplicates != "refuse":  # recorded only when not the default, so earlier builds keep their revision
            params["duplicates"] = duplicates
        # the revision is the content: every row's texts and ids, the parameters and the language
        build_id = fingerprint(KIND, params, langs, content)
        info = {
            "kind": KIND,
            "name": name,
            "description": description,
            "language": langs[0],
            "languages": langs,
            "configs": configs,
            "splits": ["test"],
            "duplicates": dup_report,
            "source": source,
            "params": params,
            "build_id": build_id,
        }
        folder.write_info(tmp, info, _card(info))
    return folder.path


def _card(info: dict[str, Any]) -> str:
    lines = [
        f"# {info['name']} (HALvest-format author triplets)",
        "",
        info["description"] or "",
        "",
        f"- Source: {info['source']}",
        f"- Language: {', '.join(info['languages'])}; build id {info['build_id']}; "
        f"parameters {json.dumps(info['params'])}",
        "- Built by `mteb-contrastive build-triplets` with the HALvest-Contrastive sampler: positive = other",
        "  document with exactly the same author set; negative = document sharing no author (same domain set",
        "  when domains are given); spans of k contiguous sentences; documents without a partner are skipped.",
        "- Schema: HALvest-Contrastive triplet schema (`query`, `positive`, `negative`, `query_halid`, `pos_halid`,",
        "  `neg_halids`, `*_authorids`, `*_domain`, `*_year`); split `test` only.",
        "",
        "| config | documents | skipped (no positive) | skipped (no negative) | query documents | triplets |",
        "|---|---|---|---|---|---|",
    ]
    for cfg, c in info["configs"].items():
        lines.append(
            f"| {cfg} | {c['documents']} | {c['skipped_no_positive']} | {c['skipped_no_negative']} "
            f"| {c['query_documents']} | {c['triplets']} |"
        )
    if "topic_field" in info["params"]:
        lines += [
            "",
            f"Topic field `{info['params']['topic_field']}`: topic-controlled triplets (positive on no shared topic, "
            "negative on a shared one; rows with `topic_controlled` true, scored apart):",
            "",
            "| config | anchors | topic-controlled triplets |",
            "|---|---|---|",
        ]
        lines += [
            f"| {cfg} | {c['topic_controlled_query_documents']} | {c['topic_controlled_triplets']} |"
            for cfg, c in info["configs"].items()
        ]
    return "\n".join(lines) + "\n"
