"""Encode once (issue 11): counting-encoder tests of the shared embedding cache, its key, and its
safety under two concurrent writers and a killed writer."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import mteb
import numpy as np
import pytest
from encoding_fakes import counting_model
from test_author_retrieval import make_task, row

from mteb_contrastive.encoding import EncodingSettingsError, output_arguments

# anchors P1 and Q are also candidates (each other's positive): 3 distinct texts in 2 triplets
ROWS = [
    row("alpha beta", "gamma delta", "eps zeta", qa=("a",), pa=("a",), na=("z",)),
    row("gamma delta", "alpha beta", "eps zeta", qa=("a",), pa=("a",), na=("z",), qh="h2", ph="h1"),
]
DISTINCT = {"alpha beta", "gamma delta", "eps zeta"}


def evaluate(model, tasks):
    return mteb.evaluate(model, tasks, cache=None, overwrite_strategy="always", show_progress_bar=False)


def test_query_that_is_also_a_candidate_is_encoded_once_without_disk_cache():
    model = counting_model(None)
    res = evaluate(model, make_task("retrieval", ROWS, "EncOnceRetrieval"))
    assert sorted(model.core.encoded_texts) == sorted(DISTINCT)  # queries {alpha, gamma} + pool {alpha, gamma, eps}
    s = res.task_results[0].scores["test"][0]
    assert (s["encoding_n_texts"], s["encoding_texts_encoded"], s["encoding_cache_hits"]) == (3, 3, 0)


def test_triplet_and_retrieval_encode_each_distinct_text_once_and_second_run_nothing(tmp_path):
    tasks = [make_task("triplet", ROWS, "EncOnceTriplets"), make_task("retrieval", ROWS, "EncOnceRetrieval2")]
    first = counting_model(tmp_path)
    r1 = evaluate(first, tasks)
    assert sorted(first.core.encoded_texts) == sorted(DISTINCT)
    assert first.n_encoded == 3
    trip, ret = (r.scores["test"][0] for r in r1.task_results)
    assert (trip["encoding_texts_encoded"], ret["encoding_texts_encoded"], ret["encoding_cache_hits"]) == (3, 0, 3)

    second = counting_model(tmp_path)  # a new process would see the same: the store is on disk
    r2 = evaluate(second, tasks)
    assert second.core.encoded_texts == [] and second.n_encoded == 0
    for a, b in zip(r1.task_results, r2.task_results):
        assert a.scores["test"][0]["main_score"] == b.scores["test"][0]["main_score"]


def test_cache_key_has_model_identity_sequence_length_and_long_document_mode(tmp_path):
    t = make_task("triplet", ROWS, "EncOnceKey")
    evaluate(counting_model(tmp_path), t)
    for other in (
        counting_model(tmp_path, identity=("counting", "2")),  # another revision
        counting_model(tmp_path, identity=("other", "1")),  # another model
        counting_model(tmp_path, max_seq_length=8),  # another max_seq_length
        counting_model(tmp_path, long_document="mean"),  # long-document mode
        counting_model(tmp_path, long_document="mean", stride=1),  # another stride
        counting_model(tmp_path, precision="bf16"),
    ):  # another precision
        evaluate(other, t)
        assert other.n_encoded == 3, other.settings
    again = counting_model(tmp_path, long_document="mean", stride=1)
    evaluate(again, t)
    assert again.n_encoded == 0


def _encode(model, texts, **kwargs):
    task = make_task("triplet", ROWS, "EncArgs")
    return model.encode(
        [{"text": list(texts)}], task_metadata=task.metadata, hf_split="test", hf_subset="default", **kwargs
    )


TEXTS = ["alpha beta", "gamma delta", "eps zeta"]


def test_a_run_without_normalize_embeddings_is_not_served_the_unit_vectors_of_a_run_with_it(tmp_path):
    # issue 20: the first run stored unit vectors, the second (no normalize_embeddings) was served them
    first = counting_model(tmp_path)
    unit = _encode(first, TEXTS, normalize_embeddings=True)
    assert np.linalg.norm(unit, axis=1) == pytest.approx([1, 1, 1])
    second = counting_model(tmp_path)
    plain = _encode(second, TEXTS)
    assert second.n_encoded == 3
    assert plain[:, 0].tolist() == [2, 2, 2] and plain[0, 1] == sum(map(ord, "alpha")) + sum(map(ord, "beta"))
    third = counting_model(tmp_path)  # and each is served its own vectors afterwards
    assert np.array_equal(_encode(third, TEXTS, normalize_embeddings=True), unit)
    assert np.array_equal(_encode(third, TEXTS), plain) and third.n_encoded == 0


@pytest.mark.parametrize(
    "kwargs, dim",
    [
        ({"normalize_embeddings": True}, 5),  # a flag
        ({"truncate_dim": 2}, 2),  # a number
        ({"precision": "int8"}, 5),  # a string (mteb's own encode argument)
        ({"my_model_option": [1, "x"]}, 5),  # an argument no one here knows of: in the key too
    ],
)
def test_every_encode_argument_that_may_change_a_vector_is_in_the_cache_key(tmp_path, kwargs, dim):
    _encode(counting_model(tmp_path), TEXTS)
    other = counting_model(tmp_path)
    emb = _encode(other, TEXTS, **kwargs)
    assert other.n_encoded == 3 and emb.shape == (3, dim)
    again = counting_model(tmp_path)
    assert np.array_equal(_encode(again, TEXTS, **kwargs), emb) and again.n_encoded == 0


def test_arguments_that_only_change_how_vectors_are_computed_share_the_cache(tmp_path):
    _encode(counting_model(tmp_path), TEXTS)
    again = counting_model(tmp_path)
    _encode(again, TEXTS, batch_size=1, show_progress_bar=False, device="cpu", num_workers=0)
    assert again.n_encoded == 0
    assert output_arguments({"batch_size": 8, "normalize_embeddings": True}) == {"normalize_embeddings": True}


def test_long_document_mode_applies_normalize_embeddings_and_refuses_what_it_cannot_apply(tmp_path):
    model = counting_model(tmp_path, max_seq_length=4, long_document="mean")  # windows of 2 words
    unit = _encode(model, ["1 2 3 4 5"], normalize_embeddings=True)
    raw = _encode(model, ["1 2 3 4 5"])  # windows [1 2] [3 4] [5], weights 2, 2, 1
    assert raw[0, :3].tolist() == pytest.approx([(2 * 2 + 2 * 2 + 1) / 5, (2 * 3 + 2 * 7 + 5) / 5, 1.0])
    assert unit[0] == pytest.approx(raw[0] / np.linalg.norm(raw[0]))
    with pytest.raises(EncodingSettingsError, match="encode argument\\(s\\) truncate_dim: long_document=mean"):
        _encode(model, ["1 2 3 4 5"], truncate_dim=2)


def test_cache_switch_off_writes_nothing(tmp_path):
    model = counting_model(None)
    evaluate(model, make_task("triplet", ROWS, "EncOnceOff"))
    assert list(tmp_path.iterdir()) == [] and model.n_encoded == 3


WRITER = r"""
import importlib.util, sys, numpy as np
spec = importlib.util.spec_from_file_location("store", sys.argv[5])  # the store module alone: fast start
store_mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(store_mod)
folder, start, stop, step = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
store = store_mod.SqliteEmbeddingStore(folder, namespace="ns", description={"test": 1})
print("ready", flush=True)
sys.stdin.readline()  # "go": both writers start together
for i in range(start, stop, step):
    texts = [{"text": f"text {j}"} for j in range(i, min(i + step, stop))]
    store.add(texts, np.asarray([[j, j * 2.0, -j] for j in range(i, min(i + step, stop))], dtype=np.float32))
"""


def _writer(folder, start, stop, step):
    import mteb_contrastive.encoding.store as store

    p = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(folder), str(start), str(stop), str(step), store.__file__],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert p.stdout.readline().strip() == "ready"
    return p


def _go(*procs):
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()


def _check_rows(folder):
    from mteb_contrastive.encoding.store import SqliteEmbeddingStore

    con = sqlite3.connect(Path(folder) / "embeddings.sqlite3")
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    store = SqliteEmbeddingStore(folder, namespace="ns")
    n = len(store)
    for j in range(n):
        v = store.get_vector({"text": f"text {j}"})
        if v is not None:
            assert v.tolist() == [j, 2.0 * j, -j]
    return store, n


def test_two_concurrent_writers_leave_every_vector_readable(tmp_path):
    a = _writer(tmp_path, 0, 2000, 3)  # overlapping ranges, different batch boundaries
    b = _writer(tmp_path, 1000, 3000, 5)
    _go(a, b)
    assert a.wait(120) == 0 and b.wait(120) == 0
    store, n = _check_rows(tmp_path)
    assert n == 3000
    assert all(store.get_vector({"text": f"text {j}"}).tolist() == [j, 2.0 * j, -j] for j in range(3000))


def test_killed_writer_leaves_a_readable_cache(tmp_path):
    p = _writer(tmp_path, 0, 10**6, 50)
    _go(p)
    time.sleep(1.0)
    p.send_signal(signal.SIGKILL)
    p.wait(30)
    store, n = _check_rows(tmp_path)
    assert n > 0 and n % 50 == 0  # whole transactions only
    assert all(store.get_vector({"text": f"text {j}"}) is not None for j in range(n))
    store.add([{"text": "after the kill"}], np.ones((1, 3), np.float32))  # and still writable
    assert store.get_vector({"text": "after the kill"}).tolist() == [1.0, 1.0, 1.0]


def test_misses_are_encoded_in_chunks_that_move_the_texts_encoded_bar(capsys):
    from mteb_contrastive.encoding.wrapper import PROGRESS_CHUNK

    model = counting_model(None)
    texts = [f"w{i} x{i % 7}" for i in range(PROGRESS_CHUNK + 44)]
    calls = []
    encode = model.core.encode
    model.core.encode = lambda inputs, **kw: calls.append(len(inputs.dataset)) or encode(inputs, **kw)
    emb = _encode(model, texts)
    assert calls == [PROGRESS_CHUNK, 44]  # two calls of the model, in the order of the texts
    assert np.array_equal(emb, np.stack([model.core.vec(ids) for ids in model.core.token_ids(texts)]))
    bar = model._progress
    assert (bar.n, bar.total) == (PROGRESS_CHUNK + 44, PROGRESS_CHUNK + 44)
    assert bar.desc.endswith("texts encoded")
    _encode(model, texts[:10] + ["one more"])  # a bar per call, its total the call's misses: it never grows
    assert model._progress is not bar and (bar.n, bar.total) == (PROGRESS_CHUNK + 44, PROGRESS_CHUNK + 44)
    assert (model._progress.n, model._progress.total) == (1, 1)
    model.close()
