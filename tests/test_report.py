"""The README's author table is read back from mteb result files."""

import mteb
from conftest import TableEncoder
from test_author_retrieval import make_task, row

from mteb_contrastive.report.tables import author_table


def test_author_table_from_result_files(tmp_path):
    rows = [row("Q", "P1", "N1"), row("Q", "P2", "N1")]
    enc = TableEncoder({"Q": [1, 0], "P1": [0.9, 0.1], "N1": [0.8, 0.6], "P2": [0, 1]})
    tasks = [
        make_task("retrieval", rows, "ToyAuthorRetrieval"),
        make_task("triplets", rows, "ToyAuthorTripletClassification"),
        make_task("retrieval", rows, "ToyQuotesRetrieval"),
    ]  # a retrieval task that is not an author task
    mteb.evaluate(enc, tasks, cache=mteb.ResultCache(tmp_path), overwrite_strategy="always")
    table = author_table(tmp_path / "results", {"test/table-encoder ToyAuthorRetrieval": 12.5})
    lines = table.splitlines()
    assert len(lines) == 3 and "ToyQuotes" not in table
    # pool 3 (random nDCG@10 with 2 of 3 relevant: 2/3 * (1 + 1/log2 3 + 1/2) / (1 + 1/log2 3) = 0.87105),
    # 2 triplets, nDCG@10 0.9197 (no same-document candidate: cross-document the same), hit rate@10 1,
    # recall@10 1, accuracy: Q-P1 .994 > Q-N1 .8 right, Q-P2 0 < .8 wrong (both rows cross-document)
    assert lines[0].count("recall@10 (share of relevant)") == 1 and "hit rate@10" in lines[0]
    assert lines[2].startswith(
        "| test/table-encoder | Toy | default | eng-Latn | 3 | 0.87105 | 2 | 0.9197 | 0.9197 | "
        "1.0000 | 1.0000 | 0.5000 | 0.5000 | 12.5 / "
    )
    # without measured timings: the sum of the subset's phases stored in the result
    t_ret, t_trip = author_table(tmp_path / "results").splitlines()[2].split(" | ")[-1].rstrip(" |").split(" / ")
    assert 0 <= float(t_ret) < 120 and 0 <= float(t_trip) < 120
