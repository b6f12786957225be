"""Print docs/reproduction.md's table: every number the four papers report that this project can compute.

    python scripts/reproduction_table.py [--shared ../shared/data]

Computed rows are computed here, now: the PAN 2020 leaderboard from the official answer files in
``<shared>/pan`` (scored the organisers' way: missing id = 0.5, 2020 F0.5u rule) and the HALvest
chance level from :mod:`mteb_contrastive.metrics.chance`. Rows that cannot be computed on this
machine say why. A paper value is only written where it was read from the paper, the organisers'
overview or the authors' code; otherwise "not found".
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mteb_contrastive.metrics.pan import PAN20_LEADERBOARD  # the official leaderboard (source cited there)

PAN_KEYS = (("auc", "AUC"), ("c@1", "c@1"), ("f1", "F1"), ("f_05_u", "F0.5u"), ("overall", "overall"))

NOT_HERE = [
    # (paper, number, paper value, why not computed here)
    (
        "HALvest-Contrastive (Kulumba et al.)",
        "triplet accuracy, nDCG@10, Recall@10, MRR@100 of BM25 and the trained models, per config",
        "not found",
        "the Hub (`almanach/` / `Madjakul/HALvest-Contrastive`) is unreachable from this machine; "
        "the tasks run as `mteb run -t HALvestRetrieval HALvestTripletClassification HALvestPairClassification` "
        "where it is reachable",
    ),
    (
        "Kirby, Contrastive Learning for Authorship Verification",
        "accuracy at the validation threshold (`pan_hard_accuracy`), PAN metrics on PAN20/PAN21",
        "not found",
        "the PAN 2020/2021 texts are on Zenodo on request only (only the PAN20 truth and team answers are here); "
        "the trained model is not available here",
    ),
    (
        "Le & Mikolov 2014, sec. 3.3",
        "IR-triplet error rate, Paragraph Vector / weighted bag-of-bigrams",
        "3.82 % / 5.67 % (as cited in this project's README; the paper was not re-read here)",
        "the paper's snippet triplets (1M queries) were never released; "
        "`CranfieldIRTriplets` runs the protocol on other data",
    ),
    (
        "Le & Mikolov 2014, sec. 3.3",
        "IR-triplet error rate, vector averaging / bag-of-words / bag-of-bigrams",
        "not found",
        "same data reason",
    ),
    (
        "QuoteR (Qi et al., ACL 2022)",
        "MRR, NDCG@5, Recall@1/10/100 per method on English / modern Chinese / classical Chinese",
        "not found",
        "the official QuoteR files (thunlp/QuoteR) are not on this machine and GitHub is unreachable; "
        "the tasks run with `MTEB_CONTRASTIVE_QUOTER_OFFICIAL` where they are",
    ),
]


def pan20_rows(shared: Path) -> list[str]:
    from mteb_contrastive.data.pan import align_answers, read_answers, read_truth
    from mteb_contrastive.metrics.pan import evaluate_all

    truth = read_truth(shared / "pan" / "pan20_test_truth.jsonl")
    out = []
    for team, paper in PAN20_LEADERBOARD.items():
        labels, values = align_answers(truth, read_answers(shared / "pan" / "pan20_answers" / f"{team}.jsonl"))
        r = evaluate_all(labels, values, year=2020)
        ours = " / ".join(f"{r[k]:.3f}" for k, _ in PAN_KEYS)
        theirs = " / ".join(f"{v:.3f}" for v in paper)
        same = "yes" if tuple(round(r[k], 3) for k, _ in PAN_KEYS) == paper else "**no**"
        out.append(
            f"| PAN 2020 overview (leaderboard) | {team}: "
            f"AUC / c@1 / F1 / F0.5u / overall | {theirs} | {ours} | {same} | "
            f"`pan/pan20_test_truth.jsonl` + `pan/pan20_answers/{team}.jsonl`; "
            "`mteb-contrastive pan-score TRUTH ANSWERS --year 2020` |"
        )
    return out


def chance_row() -> str:
    from mteb_contrastive.metrics.chance import PAPER_POOL_SIZE, expected_scores

    s = expected_scores(PAPER_POOL_SIZE, 1, (10,))
    return (
        "| HALvest-Contrastive (Kulumba et al.) | chance level of retrieval, "
        "1 relevant in a pool of 14,300 | 10/14,300 = 0.07 % | "
        f"hit rate@10 = recall@10 = {100 * s['hit_rate_at_10']:.4f} %; nDCG@10 = {100 * s['ndcg_at_10']:.4f} % | "
        "yes (hit rate / recall; the paper's 0.07 % is not nDCG@10) | "
        "`mteb_contrastive.metrics.chance.expected_scores(14300, 1)` (exact, hypergeometric) |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[1].parent / "shared" / "data")
    args = ap.parse_args()
    print("| paper | number | paper value | this project | reproduced | data and command |")
    print("|---|---|---|---|---|---|")
    for line in pan20_rows(args.shared):
        print(line)
    print(chance_row())
    for paper, what, value, why in NOT_HERE:
        print(f"| {paper} | {what} | {value} | not computed | -- | {why} |")


if __name__ == "__main__":
    main()
