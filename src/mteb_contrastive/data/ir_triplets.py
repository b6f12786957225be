"""Paragraph-vector IR triplets (Le & Mikolov 2014, section 3.3) from a retrieval collection.

Protocol: a triplet is (p1, p2, p3) where p1 and p2 are both relevant to the same query and p3
is relevant to a different query (``negative="other-query"``, the paper's rule) or drawn at
random from the corpus (``negative="random"``). A model errs on a triplet when
``d(p1, p2) >= d(p1, p3)``, i.e. when ``sim(p1, p2) > sim(p1, p3)`` does not hold (strict rule;
see :mod:`mteb_contrastive.protocols.ir_triplets`).

Building (:func:`build_ir_triplets`):

* relevance: a qrels score ``>= min_grade`` (and > 0) is relevant. Scores are read as *gains*
  (higher = more relevant, BEIR convention). For Cranfield use ``qrels/test_gain.tsv`` (the
  default when the file exists): its raw ``test.tsv`` has 1 = most relevant and -1 = judged not
  relevant, so its numbers are not gains;
* queries with fewer than two relevant (non-empty) documents are skipped and counted
  (``queries_skipped_lt2_relevant``);
* queries are split into train/valid/test by query (80/10/10, the paper's proportions) after a
  seeded shuffle, so a trained baseline never sees a test query's triplets;
* per query, the unordered pairs {p1, p2} of its relevant documents are shuffled and at most
  ``max_per_query`` kept; for each, p3 is drawn from the documents relevant to *another query*
  of the collection (any split: a negative is only a text, its query's label is not used) and
  not judged relevant (any positive score) to this query;
* document text: ``title + " " + text`` unless the text already starts with the title (Cranfield
  repeats it); empty documents are never used (counted as ``empty_documents``).

Output folder (written atomically): ``<out>/<name>/default/{train,valid,test}.parquet``,
``mteb_contrastive.json`` (``kind = "ir-triplets"``) and a ``README.md`` card.

Bad input raises :class:`~mteb_contrastive.data.errors.DataError`: an empty corpus, a duplicate
corpus (or query) id, a qrels row naming an unknown corpus or query id, a non-numeric score.
"""

from __future__ import annotations

import json
import os
import random
from itertools import combinations
from pathlib import Path
from typing import Any

from mteb_contrastive.data.built_folder import built_folder
from mteb_contrastive.data.errors import DataError
from mteb_contrastive.data.fields import describe, id_value
from mteb_contrastive.data.readers import iter_jsonl, iter_tsv, read_json
from mteb_contrastive.identity import fingerprint, nfc

KIND = "ir-triplets"
#: the command that builds this kind, and the data files it writes (:mod:`mteb_contrastive.data.built_folder`)
COMMAND, OUTPUTS = "build-ir-triplets", ("default/*.parquet",)
SPLITS = ("train", "valid", "test")
NEGATIVE_KINDS = ("other-query", "random")
COLUMNS = (
    "query",
    "positive",
    "negative",
    "query_halid",
    "pos_halid",
    "neg_halids",
    "ir_query_id",
    "neg_ir_query_id",
    "pos_grades",
)


#: the one default of ``max_per_query`` (library, ``mteb-contrastive build-ir-triplets`` and the
#: CranfieldIRTriplets task): at most 50 (p1, p2) pairs per query
DEFAULT_MAX_PER_QUERY = 50


def _doc_text(title: str, text: str) -> str:
    title, text = (title or "").strip(), (text or "").strip()
    if not title or text.startswith(title):
        return text
    return f"{title} {text}".strip()


def _read_jsonl(path: Path, kind: str) -> dict[str, str]:
    out: dict[str, str] = {}
    first: dict[str, int] = {}
    for n, row in iter_jsonl(path, what=f"{kind} file"):
        if "_id" not in row:
            raise DataError(path, "missing id", line=n, field="_id")
        did = id_value(row["_id"], path, {"line": n}, "_id")  # ids compared in NFC
        for f in ("title", "text"):
            if row.get(f) is not None and not isinstance(row[f], str):
                raise DataError(path, f"expected a string, found {describe(row[f])}", line=n, field=f)
        if did in out:
            raise DataError(path, f"duplicate {kind} id {did!r} (first at line {first[did]})", line=n, field="_id")
        first[did] = n
        out[did] = _doc_text(row.get("title", ""), row.get("text", ""))
    return out


def read_qrels(path: str | os.PathLike) -> dict[str, dict[str, float]]:
    """qrels TSV (``query-id corpus-id score``, optional header) -> {query id: {corpus id: score}}.

    Raises:
        DataError: missing file, not UTF-8 (names the line), a row without three fields, a
            non-numeric score, a repeated (query-id, corpus-id) row with a different score (names
            both lines; an exact repeat is accepted once).
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(path, "qrels file not found; check the path (--qrels is relative to the folder)")
    qrels: dict[str, dict[str, float]] = {}
    first_line: dict[tuple[str, str], int] = {}
    for n, row in iter_tsv(path, what="qrels file"):  # n: the 1-based line where the row ends
        if not row or not "".join(row).strip():
            continue
        if n == 1 and row[0].strip().lower() in ("query-id", "query_id", "qid"):
            continue
        if len(row) < 3:
            raise DataError(path, f"expected query-id, corpus-id, score; got {len(row)} fields", line=n)
        try:
            score = float(row[2])
        except ValueError:
            raise DataError(path, f"score {row[2]!r} is not a number", line=n, field="score") from None
        qid, did = nfc(row[0].strip()), nfc(row[1].strip())
        if (qid, did) in first_line:
            prev = qrels[qid][did]
            if prev != score:
                raise DataError(
                    path,
                    f"query {qid!r}, document {did!r} already graded {prev:g} at line {first_line[qid, did]}, "
                    f"here {score:g}; keep one row per (query-id, corpus-id)",
                    line=n,
                    field="score",
                )
            continue
        first_line[qid, did] = n
        qrels.setdefault(qid, {})[did] = score
    return qrels


def read_beir_folder(
    folder: str | os.PathLike, qrels_file: str | None = None
) -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, float]]]:
    """(corpus, queries, qrels) of a BEIR-layout folder, validated (see :func:`validate_collection`).

    ``qrels_file`` is relative to ``folder``; default ``qrels/test_gain.tsv`` when it exists
    (gains), else ``qrels/test.tsv``.
    """
    folder = Path(folder)
    if qrels_file is None:
        qrels_file = "qrels/test_gain.tsv" if (folder / "qrels" / "test_gain.tsv").is_file() else "qrels/test.tsv"
    corpus = _read_jsonl(folder / "corpus.jsonl", "corpus")
    queries = _read_jsonl(folder / "queries.jsonl", "query")
    qrels = read_qrels(folder / qrels_file)
    validate_collection(corpus, queries, qrels, source=folder / qrels_file)
    return corpus, queries, qrels


def validate_collection(
    corpus: dict[str, str],
    queries: dict[str, str] | None,
    qrels: dict[str, dict[str, float]],
    *,
    source: object = "collection",
) -> None:
    """Raise :class:`DataError` for an empty corpus or qrels naming unknown corpus / query ids."""
    if not corpus:
        raise DataError(source, "empty corpus: no document to build triplets from")
    for qid, docs in qrels.items():
        if queries is not None and qid not in queries:
            raise DataError(source, f"qrels name query id {qid!r}, absent from the queries", field="query-id")
        unknown = sorted(d for d in docs if d not in corpus)
        if unknown:
            raise DataError(
                source,
                f"qrels of query {qid!r} name {len(unknown)} corpus id(s) absent from the corpus: {unknown[:5]}",
                field="corpus-id",
            )


def collection_from_mteb_task(
    task_name: str, split: str = "test", hf_subset: str = "default"
) -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, float]]]:
    """(corpus, queries, qrels) of an installed mteb retrieval task (its data must be loadable)."""
    import mteb

    task = mteb.get_task(task_name)
    task.load_data()
    data = task.dataset[hf_subset][split]
    corpus: dict[str, str] = {}
    for i, row in enumerate(data["corpus"]):
        did = nfc(str(row["id"]))
        if did in corpus:
            raise DataError(task_name, f"duplicate corpus id {row['id']!r}", record=i + 1, field="id")
        corpus[did] = _doc_text(row.get("title", "") or "", row.get("text", "") or "")
    queries = {
        nfc(str(row["id"])): row["text"] if isinstance(row["text"], str) else " ".join(row["text"])
        for row in data["queries"]
    }
    qrels = {nfc(str(q)): {nfc(str(d)): float(s) for d, s in docs.items()} for q, docs in data["relevant_docs"].items()}
    validate_collection(corpus, queries, qrels, source=task_name)
    return corpus, queries, qrels


def split_queries(
    query_ids: list[str], seed: int, fractions: tuple[float, float, float] = (0.8, 0.1, 0.1)
) -> dict[str, list[str]]:
    """Seeded shuffle of the sorted query ids, cut into train/valid/test by ``fractions``."""
    ids = sorted(query_ids, key=lambda q: (len(q), q))
    random.Random(seed).shuffle(ids)
    n = len(ids)
    n_train = round(fractions[0] * n)
    n_valid = round(fractions[1] * n)
    return {"train": ids[:n_train], "valid": ids[n_train : n_train + n_valid], "test": ids[n_train + n_valid :]}


def sample_ir_triplets(
    corpus: dict[str, str],
    qrels: dict[str, dict[str, float]],
    *,
    seed: int = 0,
    min_grade: float = 1,
    max_per_query: int = DEFAULT_MAX_PER_QUERY,
    negative: str = "other-query",
    fractions: tuple[float, float, float] = (0.8, 0.1, 0.1),
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, Any]]:
    """Triplet rows per split, and counts (see the module docstring for the rules).

    Returns:
        ({"train": rows, "valid": rows, "test": rows}, counts) where a row has ``query`` (p1 text),
        ``positive`` (p2), ``negative`` (p3), ``query_halid``/``pos_halid`` (p1/p2 corpus ids),
        ``neg_halids`` ([p3 id]), ``ir_query_id``, ``neg_ir_query_id`` (None for random) and
        ``pos_grades`` ([grade of p1, grade of p2]).

    Raises:
        DataError: empty corpus; ValueError: bad parameters.
    """
    if negative not in NEGATIVE_KINDS:
        raise ValueError(f"negative must be one of {NEGATIVE_KINDS}, got {negative!r}")
    if max_per_query < 1:
        raise ValueError(f"max_per_query must be >= 1, got {max_per_query}")
    if not corpus:
        raise DataError("collection", "empty corpus: no document to build triplets from")
    validate_collection(corpus, None, qrels)
    empty = {d for d, t in corpus.items() if not t.strip()}
    relevant = {
        q: {d: g for d, g in docs.items() if g > 0 and g >= min_grade and d not in empty} for q, docs in qrels.items()
    }
    judged_positive = {q: {d for d, g in docs.items() if g > 0} for q, docs in qrels.items()}
    kept = [q for q, docs in relevant.items() if len(docs) >= 2]
    counts: dict[str, Any] = {
        "queries_in_qrels": len(qrels),
        "queries_skipped_lt2_relevant": len(qrels) - len(kept),
        "empty_documents": len(empty),
        "corpus_documents": len(corpus),
    }
    splits = split_queries(kept, seed, fractions)
    doc_owner: dict[str, list[str]] = {}  # relevant doc -> the (kept) queries it is relevant to
    for q in sorted(kept, key=lambda q: (len(q), q)):
        for d in relevant[q]:
            doc_owner.setdefault(d, []).append(q)
    out: dict[str, list[dict[str, Any]]] = {}
    for split, qids in splits.items():
        rng = random.Random(f"{seed}:{split}")
        rows: list[dict[str, Any]] = []
        pool_other = sorted(doc_owner, key=lambda d: (len(d), d))
        pool_random = sorted((d for d in corpus if d not in empty), key=lambda d: (len(d), d))
        no_negative = 0
        for q in qids:
            docs = sorted(relevant[q], key=lambda d: (len(d), d))
            pairs = list(combinations(docs, 2))
            rng.shuffle(pairs)
            forbidden = judged_positive[q]
            if negative == "other-query":
                candidates = [d for d in pool_other if d not in forbidden and any(o != q for o in doc_owner[d])]
            else:
                candidates = [d for d in pool_random if d not in forbidden]
            if not candidates:
                no_negative += 1
                continue
            for a, b in pairs[:max_per_query]:
                if rng.random() < 0.5:  # which of the pair is the anchor p1
                    a, b = b, a
                n = rng.choice(candidates)
                owner = None
                if negative == "other-query":
                    owner = rng.choice(sorted((o for o in doc_owner[n] if o != q), key=lambda o: (len(o), o)))
                rows.append(
                    {
                        "query": corpus[a],
                        "positive": corpus[b],
                        "negative": corpus[n],
                        "query_halid": a,
                        "pos_halid": b,
                        "neg_halids": [n],
                        "ir_query_id": q,
                        "neg_ir_query_id": owner,
                        "pos_grades": [float(relevant[q][a]), float(relevant[q][b])],
                    }
                )
        out[split] = rows
        counts[split] = {
            "queries": len(qids),
            "queries_without_negative": no_negative,
            "triplets": len(rows),
            "unique_texts": len({t for r in rows for t in (r["query"], r["positive"], r["negative"])}),
        }
    return out, counts


def build_ir_triplets(
    corpus: dict[str, str],
    qrels: dict[str, dict[str, float]],
    out_dir: str | os.PathLike,
    name: str,
    *,
    queries: dict[str, str] | None = None,
    seed: int = 0,
    min_grade: float = 1,
    max_per_query: int = DEFAULT_MAX_PER_QUERY,
    negative: str = "other-query",
    language: str = "eng-Latn",
    source: str = "",
    description: str = "",
    force: bool = False,
) -> Path:
    """Write the IR-triplet dataset folder ``<out_dir>/<name>`` atomically and return its path.

    Raises:
        DataError: bad collection (see :func:`validate_collection`), or no triplet in the test split.
    """
    import datasets

    folder = built_folder(out_dir, name, KIND, COMMAND, OUTPUTS, force=force)
    folder.check()  # the output place, before any work
    validate_collection(corpus, queries, qrels, source=source or name)
    splits, counts = sample_ir_triplets(
        corpus, qrels, seed=seed, min_grade=min_grade, max_per_query=max_per_query, negative=negative
    )
    if not splits["test"]:
        raise DataError(source or name, f"no triplet in the test split ({counts})")
    params = {
        "seed": seed,
        "min_grade": min_grade,
        "max_per_query": max_per_query,
        "negative": negative,
        "split": [0.8, 0.1, 0.1],
    }
    # the revision is the content: every triplet row of every split, the parameters, the language
    build_id = fingerprint(KIND, params, language, splits)
    with folder.staged() as tmp:
        (tmp / "default").mkdir()
        for split, rows in splits.items():
            ds = datasets.Dataset.from_list(rows) if rows else datasets.Dataset.from_dict({c: [] for c in COLUMNS})
            ds.to_parquet(str(tmp / "default" / f"{split}.parquet"))
        info = {
            "kind": KIND,
            "name": name,
            "description": description,
            "language": language,
            "configs": {"default": counts},
            "splits": list(SPLITS),
            "source": source,
            "params": params,
            "build_id": build_id,
        }
        folder.write_info(tmp, info, _card(info))
    return folder.path


def load_ir_triplets(
    folder: str | os.PathLike, hf_subset: str, split: str
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(rows, numeric load info) of one subset/split of a built IR-triplet folder."""
    import pyarrow.parquet as pq

    folder = Path(folder)
    info = read_json(folder / "mteb_contrastive.json")
    if info.get("kind") != KIND:
        raise DataError(folder, f"not an IR-triplet dataset (kind {info.get('kind')!r})")
    path = folder / hf_subset / f"{split}.parquet"
    if not path.is_file():
        raise DataError(path, "split file not found")
    rows = pq.read_table(path).to_pylist()
    counts = info["configs"][hf_subset]
    load = {
        "queries_skipped_lt2_relevant": counts["queries_skipped_lt2_relevant"],
        "n_ir_queries": counts[split]["queries"],
    }
    return rows, load


def _card(info: dict[str, Any]) -> str:
    c = info["configs"]["default"]
    lines = [
        f"# {info['name']} (Paragraph Vector IR triplets)",
        "",
        info["description"] or "",
        "",
        f"- Source: {info['source']}",
        f"- Build id {info['build_id']}; parameters {json.dumps(info['params'])}",
        "- Protocol: Le & Mikolov 2014, section 3.3. (p1, p2, p3): p1, p2 relevant to the same query; p3 relevant to",
        "  another query (or random) and not judged relevant to the first. Error when d(p1,p2) >= d(p1,p3).",
        f"- Queries in qrels {c['queries_in_qrels']}; "
        f"skipped (< 2 relevant documents) {c['queries_skipped_lt2_relevant']};"
        f" empty documents {c['empty_documents']}.",
        "",
        "| split | queries | triplets | unique texts |",
        "|---|---|---|---|",
    ]
    for s in SPLITS:
        lines.append(f"| {s} | {c[s]['queries']} | {c[s]['triplets']} | {c[s]['unique_texts']} |")
    return "\n".join(lines) + "\n"
