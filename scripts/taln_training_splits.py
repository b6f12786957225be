"""Author-disjoint training / validation / test corpora of the TALN French full-text bodies (docs/training.md).

The documents are the product's own TALN view (:func:`mteb_contrastive.data.taln.taln_corpus`,
``fulltext-fr``: ``text[body_offset:refs_offset]`` of the papers whose body is French, as the data
README asks: no byline, e-mails or reference list), labelled by their **first author** as
``train --docs taln=...`` labels them. Splits:

* the first authors with >= 2 papers are shuffled (seeded) and cut ``--test-share`` /
  ``--validation-share`` / rest; every first author with one paper goes to training;
* ``test.jsonl`` / ``validation.jsonl``: every paper whose first author is a test / validation author;
* ``train.jsonl``: the other papers, **minus every paper that names a validation or test author in any
  position** (a co-written paper would put a held-out author's writing into training);
* texts are compared by content (:func:`mteb_contrastive.data.content.overlapping_texts`): the script
  stops (exit 2) if a validation or test text occurs inside a training text.

Optional topic hold-out (``--hold-out-topics``): training papers sharing an author keyword
(``keywords_fr``) with a validation or test paper are dropped too, as the authors' code keeps
validation fandoms out of training (``preprocessing/step1_parse_and_split.py:91-102`` of
github.com/petekirby/contrastive-av). On TALN (seed 0) it leaves 239 of the 778 training papers, 26 of
their first authors with two papers (keywords are free-form and frequent ones such as "corpus" are shared
widely), so the documented run does not use it.

Output rows: ``{"id", "author", "authors", "text", "year", "topics"}`` (the corpus format of the
builders and of ``train --docs corpus=``), and ``splits.json`` (counts, seed, the author lists).

    python scripts/taln_training_splits.py --shared ../shared/data --out /work/train_runs/taln-splits
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path


def split(rows: list[dict], test_share: float, validation_share: float, seed: int, hold_out_topics: bool) -> dict:
    """author split -> rows, and the counts (see module docstring)."""
    first = Counter(r["authors"][0] for r in rows)
    multi = sorted(a for a, n in first.items() if n >= 2)
    random.Random(f"{seed}-taln-authors").shuffle(multi)
    n_test, n_val = round(test_share * len(multi)), round(validation_share * len(multi))
    test, val = set(multi[:n_test]), set(multi[n_test : n_test + n_val])
    held = test | val
    out = {
        "test": [r for r in rows if r["authors"][0] in test],
        "validation": [r for r in rows if r["authors"][0] in val],
    }
    rest = [r for r in rows if r["authors"][0] not in held]
    train = [r for r in rest if not set(r["authors"]) & held]
    counts = {
        "papers": len(rows),
        "first_authors": len(first),
        "first_authors_with_2_papers": len(multi),
        "test_authors": len(test),
        "validation_authors": len(val),
        "train_dropped_coauthored_with_held_out": len(rest) - len(train),
    }
    if hold_out_topics:
        topics = {k for s in ("test", "validation") for r in out[s] for k in r.get("topics") or []}
        kept = [r for r in train if not set(r.get("topics") or []) & topics]
        counts["train_dropped_held_out_topic"] = len(train) - len(kept)
        train = kept
    out["train"] = train
    for s, part in out.items():
        a = Counter(r["authors"][0] for r in part)
        counts[f"{s}_papers"] = len(part)
        counts[f"{s}_first_authors"] = len(a)
        counts[f"{s}_first_authors_with_2_papers"] = sum(n >= 2 for n in a.values())
    return {"rows": out, "counts": counts, "authors": {"test": sorted(test), "validation": sorted(val)}}


def main(argv: list[str] | None = None) -> int:
    from mteb_contrastive.data.content import overlapping_texts
    from mteb_contrastive.data.taln import taln_corpus

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", default="../shared/data")
    ap.add_argument("--out", required=True)
    ap.add_argument("--test-share", type=float, default=0.25)
    ap.add_argument("--validation-share", type=float, default=0.15)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hold-out-topics", action="store_true")
    a = ap.parse_args(argv)
    rows, _ = taln_corpus(Path(a.shared) / "taln" / "articles.jsonl.gz", "fulltext-fr", topic_field="keywords")
    res = split(rows, a.test_share, a.validation_share, a.seed, a.hold_out_topics)
    found = overlapping_texts(
        [r["text"] for s in ("test", "validation") for r in res["rows"][s]], [r["text"] for r in res["rows"]["train"]]
    )
    if found:
        print(f"error: {len(found)} validation/test texts occur inside training texts (by content)", file=sys.stderr)
        return 2
    res["counts"]["held_out_texts_inside_training"] = 0
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for s, part in res["rows"].items():
        with open(out / f"{s}.jsonl", "w", encoding="utf-8") as fh:
            for r in part:
                row = {
                    "id": r["id"],
                    "author": r["authors"][0],
                    "authors": r["authors"],
                    "text": r["text"],
                    "year": r.get("year"),
                    "topics": r.get("topics") or [],
                }
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    info = {"seed": a.seed, "hold_out_topics": a.hold_out_topics, "counts": res["counts"], "authors": res["authors"]}
    (out / "splits.json").write_text(json.dumps(info, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(res["counts"], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
