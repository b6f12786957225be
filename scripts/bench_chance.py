"""The report's simulated chance levels: the vectorised simulation against the per-run loop and a floor.

Times, in one run, on the same random streams (a PAN-sized benchmark: by default 200 validation and
192 test pairs, half same-author, the model's own cosines in 0.80-0.84 with the labels permuted):

* **loop** -- :func:`mteb_contrastive.report.chance.reference_loop_scores`: one run at a time through the
  protocol's own objects (``Calibrator``, ``KirbyCalibrator``, ``pan_scores``: 32 ``evaluate_all``
  calls per run), timed on ``--loop-runs`` runs and scaled to ``--runs``;
* **vectorised** -- :func:`mteb_contrastive.report.chance.simulated_scores`, all ``--runs`` runs at once
  (what the protocol and the report call);
* **floor** -- the PAN metrics alone in numpy on the same answer vectors
  (:func:`mteb_contrastive.metrics.pan.evaluate_all_batch` on runs x (13 + 13) validation answer
  vectors of the two abstention searches and runs x 6 test answer vectors, in the same chunks of
  runs): what any vectorised version of the same rules must compute, without its thresholds and fits.

It prints the machine, both ratios (loop / vectorised, vectorised / floor) and the largest
difference of any of the scores between the loop and the vectorised path on the loop's runs
(equal results: the test ``tests/test_report_statistics.py`` checks 1e-12). CPU seconds beside
wall seconds; best of ``--rounds`` interleaved rounds.

    PYTHONPATH=src python scripts/bench_chance.py [--runs 1000] [--loop-runs 20] [--rounds 3]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def _timed(fn) -> tuple[float, float, object]:
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w, time.process_time() - c, out


def main(argv: list[str] | None = None) -> int:
    from bench_env import machine_lines

    from mteb_contrastive.metrics.calibration import DELTA_GRID
    from mteb_contrastive.metrics.pan import evaluate_all_batch
    from mteb_contrastive.report.chance import _CHUNK_NUMBERS, permuted_streams, reference_loop_scores, simulated_scores

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--loop-runs", type=int, default=20)
    ap.add_argument("--validation", type=int, default=200)
    ap.add_argument("--test", type=int, default=192)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args(argv)

    rng = np.random.default_rng(0)
    nv, nt = a.validation, a.test
    vy = np.r_[np.ones(nv // 2), np.zeros(nv - nv // 2)]
    ty = np.r_[np.ones(nt // 2), np.zeros(nt - nt // 2)]
    vs, ts = 0.80 + 0.04 * rng.random(nv), 0.80 + 0.04 * rng.random(nt)
    streams = permuted_streams(vs, vy, ts, ty, a.runs, 0)
    few = tuple(s[: a.loop_runs] for s in streams)
    n_val_vectors = 2 * len(DELTA_GRID)
    chunk = max(1, _CHUNK_NUMBERS // max(nv, nt))
    val_answers, test_answers = rng.random((a.runs, nv)), rng.random((a.runs, nt))

    def floor() -> None:
        for lo in range(0, a.runs, chunk):  # the calls of the vectorised path, without thresholds and fits
            sl = slice(lo, lo + chunk)
            for _ in range(n_val_vectors):
                evaluate_all_batch(streams[1][sl], val_answers[sl], year=2021)
            for _ in range(6):
                evaluate_all_batch(streams[3][sl], test_answers[sl], year=2021)

    best: dict[str, tuple[float, float]] = {}
    for _ in range(a.rounds):
        for name, fn in (
            ("loop", lambda: reference_loop_scores(*few, 2021)),
            ("vectorised", lambda: simulated_scores(*streams, 2021)),
            ("floor", floor),
        ):
            wall, cpu, _ = _timed(fn)
            if name not in best or wall < best[name][0]:
                best[name] = (wall, cpu)
    loop_wall = best["loop"][0] * a.runs / a.loop_runs
    loop_cpu = best["loop"][1] * a.runs / a.loop_runs
    fast, ref = simulated_scores(*few, 2021), reference_loop_scores(*few, 2021)
    diff = max(float(np.nanmax(np.abs(fast[k] - ref[k]))) for k in ref)
    print("\n".join(machine_lines()))
    print(
        f"\n{a.runs} runs, {nv} validation + {nt} test pairs, the model's cosines with permuted labels; "
        f"best of {a.rounds} rounds\n"
    )
    print("| path | wall s | CPU s |")
    print("|---|---|---|")
    print(f"| loop (per run, {a.loop_runs} runs timed, scaled to {a.runs}) | {loop_wall:.2f} | {loop_cpu:.2f} |")
    print(f"| vectorised | {best['vectorised'][0]:.3f} | {best['vectorised'][1]:.3f} |")
    print(f"| floor (the PAN metrics alone, batched) | {best['floor'][0]:.3f} | {best['floor'][1]:.3f} |")
    print(
        f"\nloop / vectorised: {loop_wall / best['vectorised'][0]:.1f}x; "
        f"vectorised / floor: {best['vectorised'][0] / best['floor'][0]:.2f}x (goal: at most 3x); "
        f"largest difference of the {len(ref)} scores on the {a.loop_runs} loop runs: {diff:.1e}"
    )
    return 0


if __name__ == "__main__":
    sys.path.insert(0, __import__("os").path.dirname(__file__))
    sys.exit(main())
