"""Benchmark: the attribution protocol beyond its encoding, at 200 ... 12,800 texts -- time and peak memory of
each step, the growth law between sizes, and the step that dominates (issue: attribution grew as n^2.6-2.9).

Texts are synthetic: ``n`` known texts by ``n / 4`` authors (about 4 texts each, as a corpus of 3,108 evaluated
texts by 784 candidates), plus ``n / 20`` questioned texts; each text a seeded unit vector in 384 dimensions
(all-MiniLM-L6-v2's width) near its author's direction, so only the protocol is timed: the blocked similarity
sums (the one scoring path), candidate scores, closed-set scores with their intervals, chance, the nested
temperatures, calibration scores and the questioned texts' rankings. One process per size, so that each peak
is its own: ``extra MiB`` = peak RSS - RSS once the vectors are made (Linux).

The floor the issue compares against is MiniLM's encoding of the same number of texts: up to ``--encode-max``
texts, each child also encodes ``n`` real text windows (consecutive ``--window-words`` windows of the ELTeC
English novels in the shared data, default 50 words, about 70 tokens: shorter than an attribution chunk, whose
1,000 words the model cuts at 256 tokens, so the encoding floor is low and the ratio strict; one chunk per text)
with the bundled all-MiniLM-L6-v2, bare ``SentenceTransformer.encode``, batch 32, in the same process and on
the same threads; the table prints the task's total over that encoding (``task / encode`` = (encode +
protocol) / encode, goal at most 1.5 at 3,200 texts). Above ``--encode-max`` the encoding is the per-text
rate measured at the largest encoded size times n (marked ``~``: encoding is linear in n). Seconds are CPU
seconds of the process (``time.process_time``), so a second job on the machine slows both sides alike;
wall seconds are printed beside the total. ``author clustering s`` is mteb's own clustering step on the same
vectors (``MiniBatchKMeans``, K = authors with two or more texts, batch 500, seed 42, as
``mteb/_evaluators/clustering_evaluator.py`` calls it), the author-clustering task's cost beyond its encoding:
it is mteb's algorithm, timed here, not changed.

``--pair-scorer`` instead times a fitted baseline's similarity step alone (TF-IDF character 3-grams on
seeded random texts of 300 words): the scoring path (blocked ``X @ X.T`` reduced to author sums) against the
former path (every i < j pair through ``score_pairs``, as lists of texts), same numbers, with each one's
extra memory; the former path is run up to ``--old-max`` texts.

``--old-calibration`` also times the former calibration (one bounded search per evaluated author) up to
``--old-max`` texts, printed as the ratio old / new.

    python scripts/bench_attribution.py [--sizes 200 400 800 1600 3200 6400 12800] [--encode-max 3200] [--open-set]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time
from types import SimpleNamespace

import numpy as np
from bench_env import cpu_model

DIM = 384


def _problem(n: int, seed: int = 0):
    from mteb_contrastive.protocols.attribution import Problem

    rng = np.random.default_rng(seed)
    n_authors = max(2, n // 4)
    authors = np.concatenate([np.arange(n_authors), rng.integers(0, n_authors, n - n_authors)])
    centre = rng.standard_normal((n_authors, DIM))
    n_q = max(1, n // 20)
    v = np.vstack([centre[authors] + 2.0 * rng.standard_normal((n, DIM)), rng.standard_normal((n_q, DIM))])
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    texts = [
        {"id": f"k{i}", "author": f"a{a:05d}", "role": "known", "chunks": [f"k{i}"]} for i, a in enumerate(authors)
    ]
    texts += [{"id": f"q{i}", "author": None, "role": "questioned", "chunks": [f"q{i}"]} for i in range(n_q)]
    return Problem(texts), v


def _rss_mib() -> float:
    with open("/proc/self/status", encoding="utf-8") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _windows(n: int, words: int = 200) -> list[str]:
    """``n`` consecutive ``words``-word windows of the ELTeC English novels (shared data), novel by novel."""
    from mteb_contrastive.config import shared_data_dir
    from mteb_contrastive.data.readers import iter_jsonl

    out: list[str] = []
    for _, row in iter_jsonl(shared_data_dir() / "eltec" / "eng_novels.jsonl.gz"):
        w = row["text"].split()
        out += [" ".join(w[i : i + words]) for i in range(0, len(w) - words + 1, words)][: n - len(out)]
        if len(out) >= n:
            return out
    raise SystemExit(f"error: the ELTeC English novels hold fewer than {n} windows of {words} words")


def encode_seconds(n: int, words: int) -> tuple[float, float]:
    """(CPU s, wall s) of the bundled MiniLM's bare encode of ``n`` text windows of ``words`` words (batch 32)."""
    import mteb

    texts = _windows(n, words)
    st = mteb.get_model("sentence-transformers/all-MiniLM-L6-v2", cache=False).model
    st.encode(texts[:32], batch_size=32, show_progress_bar=False)  # warm-up
    c0, t0 = time.process_time(), time.perf_counter()
    st.encode(texts, batch_size=32, show_progress_bar=False)
    return time.process_time() - c0, time.perf_counter() - t0


def clustering_seconds(problem, v: np.ndarray) -> float:
    """CPU s of mteb's clustering step on the known texts of authors with two or more (K = those authors)."""
    from collections import Counter

    from sklearn import cluster

    known = [i for i, t in enumerate(problem.texts) if t["role"] == "known"]
    authors = [problem.texts[i]["author"] for i in known]
    counts = Counter(authors)
    keep = [i for i, a in zip(known, authors) if counts[a] >= 2]
    k = len({problem.texts[i]["author"] for i in keep})
    c0 = time.process_time()
    cluster.MiniBatchKMeans(n_clusters=k, batch_size=500, n_init="auto", compute_labels=True, random_state=42).fit(
        v[keep]
    )
    return time.process_time() - c0


def run_one(n: int, open_set: bool, old: bool, encode_words: int = 0) -> dict:
    from mteb_contrastive.metrics import attribution as am
    from mteb_contrastive.protocols import scoring
    from mteb_contrastive.protocols.attribution import AbsTaskAttribution

    problem, v = _problem(n)
    task = SimpleNamespace(
        metadata=SimpleNamespace(name="Bench"), open_set=open_set, _nested_log_p=AbsTaskAttribution._nested_log_p
    )
    cls = AbsTaskAttribution
    steps: dict[str, float] = {}
    base = _rss_mib()

    wall0 = time.perf_counter()

    def timed(name, fn, *args):
        t = time.process_time()
        out = fn(*args)
        steps[name] = time.process_time() - t
        return out

    sums = timed(
        "similarity sums",
        lambda: problem.author_sums(
            scoring.similarity_blocks(None, scoring.ENCODER, v[problem.rows], v[problem.columns])
        ),
    )
    closed = timed("candidate scores", lambda: problem.candidate_scores(sums, problem.evaluated, leave_out="text"))
    timed("closed-set scores", lambda: cls._closed_set_scores(task, problem, closed))
    timed("chance", lambda: cls._chance(task, problem, closed))
    temperature, nested = timed("calibration (nested T)", lambda: cls._calibrate(task, problem, closed))
    timed("calibration scores", lambda: cls._calibration_scores(task, problem, closed, temperature, nested))
    threshold = None
    if open_set:
        _, threshold = timed("open set", lambda: cls._open_set(task, problem, sums, closed, temperature, nested))
    timed("questioned", lambda: cls._questioned(task, problem, sums, temperature, threshold))
    wall = time.perf_counter() - wall0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    out = {"n": n, "steps": steps, "total": sum(steps.values()), "wall": wall, "peak_mib": max(0.0, peak - base)}
    out["clustering"] = clustering_seconds(problem, v)
    if encode_words:
        out["encode"], out["encode_wall"] = encode_seconds(n, encode_words)
    out["n_candidates"], out["n_evaluated"] = len(problem.authors), len(problem.evaluated)
    if old:
        gold = problem.gold_codes
        t = time.process_time()
        for a in sorted(set(gold.tolist())):
            am.fit_temperature(closed[gold != a], gold[gold != a])
        out["old_calibration"] = time.process_time() - t
    return out


def run_pair_scorer(n: int, old: bool) -> dict:
    from mteb_contrastive.baselines.sparse import TfidfBaseline
    from mteb_contrastive.protocols import scoring
    from mteb_contrastive.protocols.attribution import Problem
    from mteb_contrastive.protocols.fitting import score_pairs

    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(2000)]
    n_authors = max(2, n // 4)
    authors = np.concatenate([np.arange(n_authors), rng.integers(0, n_authors, n - n_authors)])
    samples = [" ".join(rng.choice(vocab, 300)) for _ in range(n)]
    texts = [
        {"id": f"k{i}", "author": f"a{a:05d}", "role": "known", "chunks": [samples[i]]} for i, a in enumerate(authors)
    ]
    problem = Problem(texts)
    model = TfidfBaseline(kind="char3")
    model.fit(samples)
    base = _rss_mib()
    t = time.perf_counter()
    blocks = scoring.similarity_blocks(
        model, scoring.PAIR_SCORER, [samples[i] for i in problem.rows], [samples[i] for i in problem.columns]
    )
    sums = problem.author_sums(blocks)
    out = {
        "n": n,
        "new_s": time.perf_counter() - t,
        "new_mib": max(0.0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - base),
    }
    if old:
        base = max(base, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        t = time.perf_counter()
        i, j = np.triu_indices(n, k=1)
        s = score_pairs(model, [samples[a] for a in i], [samples[b] for b in j])
        sim = np.zeros((n, n))
        sim[i, j] = s
        sim[j, i] = s
        out["old_s"] = time.perf_counter() - t
        out["old_mib"] = max(0.0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - base)
        np.fill_diagonal(sim, 0.0)
        col = np.array(problem.columns)
        ref = np.add.reduceat(sim[np.array(problem.rows)][:, col], problem.column_starts, axis=1)
        out["max_abs_diff"] = float(np.max(np.abs(ref - sums)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[200, 400, 800, 1600, 3200, 6400, 12800])
    ap.add_argument("--open-set", action="store_true", help="also the open-set step")
    ap.add_argument(
        "--old-calibration", action="store_true", help="also the former per-author searches (up to --old-max texts)"
    )
    ap.add_argument("--pair-scorer", action="store_true", help="time a fitted baseline's similarity step instead")
    ap.add_argument("--old-max", type=int, default=800, help="largest size the former pair path runs at")
    ap.add_argument(
        "--encode-max", type=int, default=3200, help="largest size whose MiniLM encoding is timed (0: none)"
    )
    ap.add_argument("--window-words", type=int, default=50, help="words per encoded text window")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child and args.pair_scorer:
        print(json.dumps(run_pair_scorer(args.child, args.child <= args.old_max)))
        return 0
    if args.child:
        old = args.old_calibration and args.child <= args.old_max
        print(json.dumps(run_one(args.child, args.open_set, old, args.window_words * (args.child <= args.encode_max))))
        return 0
    print(f"CPU: {cpu_model()}, {os.cpu_count()} logical cores; numpy {np.__version__}")
    rows = []
    for n in args.sizes:
        cmd = [sys.executable, __file__, "--child", str(n), "--old-max", str(args.old_max)]
        cmd += ["--encode-max", str(args.encode_max), "--window-words", str(args.window_words)]
        cmd += ["--open-set"] * args.open_set + ["--old-calibration"] * args.old_calibration
        cmd += ["--pair-scorer"] * args.pair_scorer
        res = subprocess.run(cmd, capture_output=True, text=True, check=True)
        rows.append(json.loads(res.stdout.strip().splitlines()[-1]))
    if args.pair_scorer:
        print("| texts | scoring path s | extra MiB | former pair path s | extra MiB | former / new | max abs diff |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            old = (
                f"{r['old_s']:.2f} | {r['old_mib']:.0f} | {r['old_s'] / r['new_s']:.1f}x | {r['max_abs_diff']:.1e}"
                if "old_s" in r
                else "not run | | |"
            )
            print(f"| {r['n']} | {r['new_s']:.2f} | {r['new_mib']:.0f} | {old} |")
        return 0
    names = list(rows[0]["steps"])
    threads = os.environ.get("OMP_NUM_THREADS", "(unset)")
    print(
        f"CPU seconds of one process per size (OMP_NUM_THREADS={threads}); encode = MiniLM, "
        f"{args.window_words}-word windows\n"
    )
    print(
        "| texts | candidates | "
        + " | ".join(f"{s} s" for s in names)
        + " | protocol s | protocol wall s | growth | extra MiB | encode s | task / encode | author clustering s |"
    )
    print("|" + "---:|" * (len(names) + 9))
    prev = None
    rate = None
    for r in rows:
        growth = "" if prev is None else f"n^{math.log(r['total'] / prev['total']) / math.log(r['n'] / prev['n']):.2f}"
        cells = " | ".join(f"{r['steps'][s]:.3f}" for s in names)
        if "encode" in r:
            rate, enc, mark = r["encode"] / r["n"], r["encode"], ""
        elif rate is not None:
            enc, mark = rate * r["n"], "~"
        else:
            enc, mark = None, ""
        ratio = "" if enc is None else f"{mark}{(enc + r['total']) / enc:.2f}"
        enc_cell = "" if enc is None else f"{mark}{enc:.1f}"
        print(
            f"| {r['n']} | {r['n_candidates']} | {cells} | {r['total']:.2f} | {r['wall']:.2f} | {growth} | "
            f"{r['peak_mib']:.0f} | {enc_cell} | {ratio} | {r['clustering']:.2f} |"
        )
        prev = r
    if args.old_calibration:
        for r in rows:
            if "old_calibration" in r:
                old, new = r["old_calibration"], r["steps"]["calibration (nested T)"]
                print(f"former calibration at {r['n']} texts: {old:.2f} s = {old / new:.1f}x the new")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
