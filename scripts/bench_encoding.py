"""Encoding benchmarks 2-4 (docs/benchmarks-encoding.md), each measured side by side in one run.

    PYTHONPATH=src HF_HUB_OFFLINE=1 nice python scripts/bench_encoding.py whole-task --datasets build/datasets
    PYTHONPATH=src HF_HUB_OFFLINE=1 nice python scripts/bench_encoding.py overhead   --datasets build/datasets
    PYTHONPATH=src HF_HUB_OFFLINE=1 nice python scripts/bench_encoding.py backends   --datasets build/datasets

* ``whole-task`` (2): the triplet + retrieval tasks of one TALN benchmark (default TALNAbstractEn)
  with all-MiniLM-L6-v2 four ways: mteb's defaults (the stock ``SentenceTransformerEncoderWrapper``,
  no cache), our encoding layer with the disk cache off (encode-once within the run only), with
  an empty disk cache, and again with that cache filled. Wall time of both tasks, texts the model
  encoded (counted at ``SentenceTransformer.encode``), ratio to mteb's defaults, main scores.
* ``overhead`` (3): the same distinct texts through the product path (``EncodingModel.encode``,
  cache off, statistics on) vs a bare ``SentenceTransformer.encode(texts, batch_size=32)``, and
  bare encode without sentence-transformers' length sorting (batches of 32 in input order).
  Runs alternate, ``--repeats`` times each; the median CPU time (``time.process_time``, torch on
  ``--threads`` threads, default 1: on a loaded machine wall time also measures other processes) and the
  median wall time are reported.
* ``backends`` (4): torch fp32 vs torch int8 (``precision=int8``; ``--bf16`` adds torch bf16) vs
  ONNX fp32 and ONNX int8 (sentence-transformers' ``export_dynamic_quantized_onnx_model``, avx2)
  when ``onnxruntime``/``optimum`` are installed (a separate venv: that extra pins older
  transformers) vs OpenVINO fp32, int8 static (``export_static_quantized_openvino_model``,
  calibrated on ``--calibration``) and int8 weight-only when ``openvino``/``optimum-intel`` are
  installed (another venv, ``sentence-transformers[openvino]``; ``--ov-profile`` adds where their
  time goes): texts/s and tokens/s of a bare ``SentenceTransformer.encode`` of ``--n-texts``
  texts (median of ``--repeats`` rotating rounds, ``--threads`` threads), and the main scores of the
  benchmark's two tasks plus ``--score-tasks`` with the disk cache off.

The TALN folders are built into ``--datasets`` with ``mteb-contrastive build-taln`` when absent.
Every script prints the CPU, cores and BLAS thread pools first (threadpoolctl).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
ROOT = Path(__file__).resolve().parents[1]
MINILM = "sentence-transformers/all-MiniLM-L6-v2"


def _datasets(folder: str, shared: str | None) -> Path:
    out = Path(folder).resolve()
    if not (out / "TALNAbstractEn").is_dir():
        from mteb_contrastive.cli.main import build_taln
        from mteb_contrastive.config import shared_data_dir

        build_taln(shared_data_dir(shared), out)
    return out


def _subset(datasets: Path, shared: str | None, n_authors: int) -> str:
    """Build ``TALNAbstractEnSub<n>``: TALN English abstracts of the first ``n`` author sets with >= 2
    papers plus ``n`` single-paper author sets (k=2, 2 triplets per anchor document, seed 0)."""
    from collections import Counter

    from mteb_contrastive.config import shared_data_dir
    from mteb_contrastive.data.halvest_builder import build_halvest_dataset
    from mteb_contrastive.data.taln import taln_corpus

    name = f"TALNAbstractEnSub{n_authors}"
    if not (datasets / name).is_dir():
        docs, _ = taln_corpus(shared_data_dir(shared) / "taln" / "articles.jsonl.gz", "abstract-en")
        sets = Counter(frozenset(d["authors"]) for d in docs)
        paired = [s for s, n in sets.items() if n >= 2][:n_authors]
        keep = [d for d in docs if frozenset(d["authors"]) in paired] + [
            d for d in docs if sets[frozenset(d["authors"])] == 1
        ][:n_authors]
        build_halvest_dataset(
            keep,
            datasets,
            name,
            ks=(2,),
            language="en",
            mteb_language="eng-Latn",
            n_triplets=2,
            seed=0,
            source="TALN abstracts (benchmark subset)",
        )
    return name


def _count_encodes(st) -> list[int]:
    """Wrap ``st.encode`` to append the number of texts of each call to the returned list."""
    counts: list[int] = []
    original = st.encode

    def encode(*args, **kwargs):
        texts = args[0] if args else kwargs.get("inputs", kwargs.get("sentences"))
        counts.append(1 if isinstance(texts, str) else len(texts))
        return original(*args, **kwargs)

    st.encode = encode
    return counts


def _tasks(name: str):
    import mteb

    return [mteb.get_task(f"{name}AuthorTripletClassification"), mteb.get_task(f"{name}AuthorRetrieval")]


def _main_scores(res) -> list[float]:
    return [tr.scores["test"][0]["main_score"] for tr in res.task_results]


def _distinct_texts(name: str) -> list[str]:
    texts: dict[str, None] = {}
    for task in _tasks(name):
        task.load_data()
        for subset in task.hf_subsets:
            data = task.dataset[subset]["test"]
            if isinstance(data, list):
                for r in data:
                    for f in ("query", "positive", "negative"):
                        texts.setdefault(r[f])
    return list(texts)


def whole_task(args) -> None:
    import mteb
    from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper

    cache_dir = Path(tempfile.mkdtemp(prefix="bench-emb-cache-"))
    rows = []

    def run(label, make_model):
        model, st = make_model()
        counts = _count_encodes(st)
        t0 = time.perf_counter()
        res = mteb.evaluate(
            model, _tasks(args.benchmark), cache=None, overwrite_strategy="always", show_progress_bar=False
        )
        wall = time.perf_counter() - t0
        rows.append((label, wall, sum(counts), _main_scores(res)))
        print(f"done {label}: {wall:.0f} s, {sum(counts)} texts", file=sys.stderr, flush=True)

    def stock():
        m = SentenceTransformerEncoderWrapper(MINILM, revision=mteb.get_model_meta(MINILM).revision)
        m.mteb_model_meta = mteb.get_model_meta(MINILM)
        return m, m.model

    def ours(cache: bool):
        def make():
            os.environ["MTEB_CONTRASTIVE_EMBEDDING_CACHE_DIR"] = str(cache_dir)
            m = mteb.get_model(MINILM, cache=cache)
            return m, m.model

        return make

    run("mteb defaults (stock wrapper, no cache)", stock)
    run("encoding layer, disk cache off", ours(False))
    run("encoding layer, empty disk cache", ours(True))
    run("encoding layer, filled disk cache (2nd run)", ours(True))
    base = rows[0][1]
    print(f"Benchmark 2: {args.benchmark} triplet + retrieval, all-MiniLM-L6-v2, batch 32\n")
    print("| path | wall s | texts encoded | wall ratio to mteb defaults | triplet accuracy | nDCG@10 |")
    print("|---|---|---|---|---|---|")
    for label, wall, n, scores in rows:
        print(f"| {label} | {wall:.1f} | {n} | {wall / base:.2f} | {scores[0]:.4f} | {scores[1]:.4f} |")


def overhead(args) -> None:
    import mteb
    import torch

    torch.set_num_threads(args.threads)
    texts = _distinct_texts(args.benchmark)[: args.n_texts]
    task = _tasks(args.benchmark)[0]
    model = mteb.get_model(MINILM, cache=False)
    st = model.model
    n_tokens = sum(
        len(x)
        for x in st.tokenizer(texts, add_special_tokens=True, truncation=True, max_length=st.max_seq_length)[
            "input_ids"
        ]
    )

    from mteb_contrastive.encoding import EncodingModel

    def product():
        # a fresh layer over the same loaded model: every text is a miss, statistics are computed
        fresh = EncodingModel(model.core, model.settings, identity=model.identity, meta=model.mteb_model_meta)
        fresh.encode([{"text": texts}], task_metadata=task.metadata, hf_split="test", hf_subset="bench")

    def bare():
        st.encode(texts, batch_size=32, show_progress_bar=False)

    def bare_unsorted():
        for b in range(0, len(texts), 32):
            st.encode(texts[b : b + 32], batch_size=32, show_progress_bar=False)

    times: dict[str, list[float]] = {"bare": [], "product": [], "unsorted": []}
    cpu: dict[str, list[float]] = {"bare": [], "product": [], "unsorted": []}
    paths = [("bare", bare), ("product", product), ("unsorted", bare_unsorted)]
    bare()  # warm-up
    for r in range(args.repeats):
        for name, fn in paths[r % 3 :] + paths[: r % 3]:  # rotate the order every round
            c0, t0 = time.process_time(), time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)
    med = {k: statistics.median(v) for k, v in cpu.items()}
    wall = {k: statistics.median(v) for k, v in times.items()}
    print(
        f"Benchmark 3: {len(texts)} distinct {args.benchmark} texts ({n_tokens} tokens after "
        f"truncation to {st.max_seq_length}), "
        f"all-MiniLM-L6-v2 fp32, batch 32, torch threads {args.threads}, median of {args.repeats} rotating runs\n"
    )
    print("| path | median CPU s | CPU ratio to bare encode | median wall s | wall ratio |")
    print("|---|---|---|---|---|")
    for label, k in (
        ("bare SentenceTransformer.encode (length-sorted)", "bare"),
        ("product path: EncodingModel.encode (cache off)", "product"),
        ("bare encode, batches in input order (no length sorting)", "unsorted"),
    ):
        print(f"| {label} | {med[k]:.2f} | {med[k] / med['bare']:.3f} | {wall[k]:.2f} | {wall[k] / wall['bare']:.3f} |")
    print("\nall runs, CPU s: " + "; ".join(f"{k}: " + ", ".join(f"{x:.2f}" for x in v) for k, v in cpu.items()))
    print("all runs, wall s: " + "; ".join(f"{k}: " + ", ".join(f"{x:.2f}" for x in v) for k, v in times.items()))


def _onnx_models(tmp: Path, threads: int):
    """sentence-transformers ONNX models of all-MiniLM-L6-v2: fp32 (exported by optimum on load) and
    its dynamically quantised int8 export (``export_dynamic_quantized_onnx_model``, avx2 config:
    per-channel int8 weights), both on onnxruntime's CPU provider with ``threads`` intra-op threads."""
    import onnxruntime as ort
    from sentence_transformers import SentenceTransformer, export_dynamic_quantized_onnx_model

    def opts():
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        return so

    import shutil

    from huggingface_hub import snapshot_download

    folder = (
        tmp / "minilm-onnx"
    )  # a local copy of the snapshot: the ONNX loader lists a Hub repo's files (offline: fails)
    shutil.copytree(snapshot_download(MINILM, local_files_only=True), folder)
    st = SentenceTransformer(
        str(folder),
        backend="onnx",
        device="cpu",
        model_kwargs={"session_options": opts(), "provider": "CPUExecutionProvider"},
    )
    export_dynamic_quantized_onnx_model(
        st, "avx2", str(folder)
    )  # writes onnx/model_q[u]int8_avx2.onnx (name varies by version)
    (qfile,) = sorted((folder / "onnx").glob("model_*int8_avx2.onnx"))
    q = SentenceTransformer(
        str(folder),
        backend="onnx",
        device="cpu",
        model_kwargs={"file_name": f"onnx/{qfile.name}", "session_options": opts(), "provider": "CPUExecutionProvider"},
    )
    print(
        f"ONNX int8 model: {qfile.name} (sentence-transformers export_dynamic_quantized_onnx_model, avx2 config)",
        file=sys.stderr,
    )
    return st, q


def _openvino_models(tmp: Path, threads: int, calibration: Path, n_calibration: int):
    """sentence-transformers OpenVINO models of all-MiniLM-L6-v2, each compiled for the CPU with
    ``INFERENCE_NUM_THREADS=threads`` (``model_kwargs={"ov_config": ...}``): fp32 (exported by
    optimum-intel on load), int8 static quantisation (``export_static_quantized_openvino_model``:
    NNCF post-training quantisation of weights and activations, calibrated on the first
    ``n_calibration`` documents of ``calibration``, a JSON Lines file with a ``text`` field) and int8
    weight-only compression (optimum-intel ``quantization_config={"bits": 8}`` at export: int8
    weights, float activations). Returns [(label, SentenceTransformer, revision tag)]."""
    import json
    import shutil

    from huggingface_hub import snapshot_download
    from optimum.intel import OVQuantizationConfig
    from sentence_transformers import SentenceTransformer, export_static_quantized_openvino_model

    folder = tmp / "minilm-openvino"  # a local copy of the snapshot: the exports are written next to it
    shutil.copytree(snapshot_download(MINILM, local_files_only=True), folder)
    ov_config = {"INFERENCE_NUM_THREADS": threads}

    def fp32_model():
        return SentenceTransformer(
            str(folder), backend="openvino", device="cpu", model_kwargs={"ov_config": dict(ov_config)}
        )

    calib = tmp / "calibration"
    calib.mkdir()
    with open(calibration, encoding="utf-8") as src, open(calib / "train.jsonl", "w", encoding="utf-8") as out:
        for i, line in enumerate(src):
            if i == n_calibration:
                break
            out.write(json.dumps({"sentence": json.loads(line)["text"]}) + "\n")
    t0 = time.perf_counter()
    # the export quantises the model it is given in place: a throwaway instance, the fp32 row loads its own below
    export_static_quantized_openvino_model(
        fp32_model(),
        OVQuantizationConfig(num_samples=n_calibration),
        str(folder),
        dataset_name=str(calib),
        dataset_config_name="default",
        dataset_split="train",
        column_name="sentence",
    )
    print(
        f"OpenVINO int8 static export: {time.perf_counter() - t0:.0f} s, "
        f"calibrated on {n_calibration} texts of {calibration}",
        file=sys.stderr,
    )
    static = SentenceTransformer(
        str(folder),
        backend="openvino",
        device="cpu",
        model_kwargs={"file_name": "openvino/openvino_model_qint8_quantized.xml", "ov_config": dict(ov_config)},
    )
    weights = SentenceTransformer(
        str(folder),
        backend="openvino",
        device="cpu",
        model_kwargs={"export": True, "quantization_config": {"bits": 8}, "ov_config": dict(ov_config)},
    )
    out = [
        ("openvino fp32 (backend=openvino)", fp32_model(), "openvino"),
        ("openvino int8 static (NNCF export, calibrated)", static, "openvino-qint8-static"),
        ("openvino int8 weights only (bits=8)", weights, "openvino-int8-weights"),
    ]
    for label, st, _ in out:
        st.transformers_model.compile()  # compiled lazily otherwise (at the first encode)
        print(
            f"{label}: compiled "
            f"INFERENCE_NUM_THREADS={st.transformers_model.request.get_property('INFERENCE_NUM_THREADS')}",
            file=sys.stderr,
        )
    return out


def _openvino_profile(st, texts: list[str], batch: int = 32) -> str:
    """Where an OpenVINO model spends its inference time on ``texts``: the model recompiled with its
    own config plus ``PERF_COUNT=YES``, batches of ``batch`` length-sorted texts (as sentence-transformers
    batches them), OpenVINO's per-node profiling (``real_time``, seconds) summed per node type, and per
    kernel for the ``FullyConnected*`` (matmul) nodes; shares of the summed node time, plus the
    tokenisation time (s). Profiling adds its own overhead: compare shares and models, not with the
    throughput table."""
    from collections import defaultdict

    import openvino as ov

    m = st.transformers_model
    compiled = ov.Core().compile_model(m.model, "CPU", {**m.ov_config, "PERF_COUNT": "YES"})
    request = compiled.create_infer_request()
    names = {i.get_any_name() for i in compiled.inputs}
    by_type: dict[str, float] = defaultdict(float)
    fc: dict[str, float] = defaultdict(float)
    tok = 0.0
    ordered = sorted(texts, key=len, reverse=True)
    for b in range(0, len(ordered), batch):
        t0 = time.perf_counter()
        enc = st.tokenizer(
            ordered[b : b + batch], padding=True, truncation=True, max_length=st.max_seq_length, return_tensors="np"
        )
        tok += time.perf_counter() - t0
        request.infer({k: v for k, v in enc.items() if k in names})
        for info in request.profiling_info:
            t = info.real_time.total_seconds()
            by_type[info.node_type] += t
            if info.node_type.startswith("FullyConnected"):  # also FullyConnectedCompressed (int8 weights)
                fc[info.exec_type] += t
    total = sum(by_type.values())
    top = sorted(by_type.items(), key=lambda kv: -kv[1])[:5]
    return (
        f"summed node time {total:.2f} s: "
        + ", ".join(f"{k} {100 * v / total:.0f}%" for k, v in top)
        + f"; FullyConnected* {sum(fc.values()):.2f} s, kernels: "
        + ", ".join(f"{k} {100 * v / total:.0f}%" for k, v in sorted(fc.items(), key=lambda kv: -kv[1]))
        + f"; tokenisation {tok:.2f} s"
    )


def backends(args) -> None:
    """Benchmark 4: bare ``SentenceTransformer.encode`` throughput of each backend/precision on the
    same texts (interleaved rounds, median), then the main scores of the score tasks through the
    product path with the disk cache off (each configuration encodes everything itself)."""
    import mteb
    import numpy as np
    import torch
    from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper

    from mteb_contrastive.config import shared_data_dir
    from mteb_contrastive.encoding import EncodingSettings
    from mteb_contrastive.encoding.loading import backend_available, wrap_sentence_transformer
    from mteb_contrastive.encoding.settings import BACKENDS

    torch.set_num_threads(args.threads)
    texts = _distinct_texts(args.benchmark)[: args.n_texts]
    tmp = Path(tempfile.mkdtemp(prefix="bench-backends-"))
    os.environ["MTEB_CONTRASTIVE_EMBEDDING_CACHE_DIR"] = str(tmp / "cache")  # fresh; cache=False below anyway
    configs = [("torch fp32", {}), ("torch int8 (precision=int8)", {"precision": "int8"})]
    if args.bf16:
        configs.append(("torch bf16 (precision=bf16)", {"precision": "bf16"}))
    models = {label: mteb.get_model(MINILM, cache=False, **opts) for label, opts in configs}
    exported = []  # (backend, label, SentenceTransformer, revision tag)
    if backend_available("onnx"):
        st_onnx, st_onnx8 = _onnx_models(tmp, args.threads)
        exported += [
            ("onnx", "onnx fp32 (backend=onnx)", st_onnx, "onnx"),
            ("onnx", "onnx int8 (avx2 dynamic quantisation export)", st_onnx8, "onnx-qint8-avx2"),
        ]
    if backend_available("openvino"):
        calibration = (
            Path(args.calibration)
            if args.calibration
            else shared_data_dir(args.shared) / "ir" / "cranfield" / "corpus.jsonl"
        )
        exported += [("openvino", *row) for row in _openvino_models(tmp, args.threads, calibration, args.n_calibration)]
    meta = mteb.get_model_meta(MINILM)
    for backend, label, st, tag in exported:
        inner = SentenceTransformerEncoderWrapper(st)
        m = meta.model_copy(update={"revision": f"{meta.revision}+{tag}"})
        # openvino is no encoding option (BACKENDS): its rows take the product path with torch's settings, which
        # here only name the in-memory store of that one model (cache off, identity None); the revision says openvino
        settings = EncodingSettings(backend=backend if backend in BACKENDS else "torch", cache=False)
        models[label] = wrap_sentence_transformer(inner, settings, identity=None, meta=m)
    st0 = models["torch fp32"].model
    n_tokens = sum(
        len(x)
        for x in st0.tokenizer(texts, add_special_tokens=True, truncation=True, max_length=st0.max_seq_length)[
            "input_ids"
        ]
    )
    walls: dict[str, list[float]] = {k: [] for k in models}
    cpus: dict[str, list[float]] = {k: [] for k in models}  # process CPU s per round: / wall ~ 1 on one thread
    embs: dict[str, np.ndarray] = {}
    for m in models.values():  # warm-up
        m.model.encode(texts[:32], batch_size=32, show_progress_bar=False)
    labels = list(models)
    for r in range(args.repeats):
        for label in labels[r % len(labels) :] + labels[: r % len(labels)]:  # rotate the order every round
            c0, t0 = time.process_time(), time.perf_counter()
            e = models[label].model.encode(texts, batch_size=32, show_progress_bar=False, convert_to_numpy=True)
            walls[label].append(time.perf_counter() - t0)
            cpus[label].append(time.process_time() - c0)
            embs[label] = np.asarray(e, dtype=np.float32)
        print(f"round {r + 1}: " + ", ".join(f"{k} {walls[k][-1]:.1f} s" for k in labels), file=sys.stderr, flush=True)
    profiles = {
        label: _openvino_profile(models[label].model, texts)
        for _, label, _, _ in exported
        if args.ov_profile and models[label].model.get_backend() == "openvino"
    }
    ref = embs["torch fp32"]
    tasks = _tasks(args.benchmark) + [mteb.get_task(t) for t in args.score_tasks]
    scores: dict[str, list[float]] = {}
    for label, m in models.items():
        if args.no_scores:
            scores[label] = [float("nan")] * len(tasks)
            continue
        t0 = time.perf_counter()
        res = mteb.evaluate(
            m,
            [mteb.get_task(t.metadata.name) for t in tasks],
            cache=None,
            overwrite_strategy="always",
            show_progress_bar=False,
        )
        by = {tr.task_name: tr.scores["test"][0]["main_score"] for tr in res.task_results}
        scores[label] = [by[t.metadata.name] for t in tasks]
        print(f"scored {label}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    med = {k: statistics.median(v) for k, v in walls.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpus.items()}
    print(
        f"Benchmark 4: all-MiniLM-L6-v2 on {len(texts)} distinct {args.benchmark} texts "
        f"({n_tokens} tokens after truncation to {st0.max_seq_length}), batch 32, {args.threads} thread(s) "
        "(torch threads / onnxruntime intra-op threads / OpenVINO INFERENCE_NUM_THREADS), "
        f"median wall time of {args.repeats} rotating rounds of bare `SentenceTransformer.encode`\n"
    )
    names = [f"{t.metadata.name} {t.metadata.main_score}" for t in tasks]
    print(
        "| backend | texts/s | tokens/s | speed-up | CPU-time speed-up | CPU s / wall s | "
        "mean cosine to fp32 | min cosine | " + " | ".join(names) + " | max abs diff (points) |"
    )
    print("|---|---|---|---|---|---|---|---|" + "---|" * len(names) + "---|")
    base = med["torch fp32"]
    for label in labels:
        e = embs[label]
        cos = np.sum(e * ref, 1) / (np.linalg.norm(e, axis=1) * np.linalg.norm(ref, axis=1))
        sc = scores[label]
        diffs = [100 * (a - b) for a, b in zip(sc, scores["torch fp32"])]
        cells = " | ".join(f"{a:.4f} ({d:+.2f})" for a, d in zip(sc, diffs))
        print(
            f"| {label} | {len(texts) / med[label]:.1f} | {n_tokens / med[label]:.0f} | {base / med[label]:.2f}x "
            f"| {med_cpu['torch fp32'] / med_cpu[label]:.2f}x | {sum(cpus[label]) / sum(walls[label]):.2f} "
            f"| {cos.mean():.5f} | {cos.min():.5f} | {cells} | {max(abs(d) for d in diffs):.2f} |"
        )
    print("\nall rounds, wall s: " + "; ".join(f"{k}: " + ", ".join(f"{x:.2f}" for x in v) for k, v in walls.items()))
    print("all rounds, CPU s: " + "; ".join(f"{k}: " + ", ".join(f"{x:.2f}" for x in v) for k, v in cpus.items()))
    if profiles:
        print("\nOpenVINO profile (share of the summed node times, PERF_COUNT=YES, same texts and threads):")
        for label, line in profiles.items():
            print(f"* {label}: {line}")
    if not backend_available("onnx"):
        print(
            "\nONNX fp32 / int8: not measured in this environment (onnxruntime and optimum are not installed; "
            "`backend=onnx` raises a one-line error naming them). "
            "Run this script from a venv with sentence-transformers[onnx]."
        )
    if not backend_available("openvino"):
        print(
            "\nOpenVINO fp32 / int8: not measured in this environment (openvino and optimum-intel are not installed). "
            "Run this script from a venv with sentence-transformers[openvino]."
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench", choices=["whole-task", "overhead", "backends"])
    ap.add_argument("--datasets", default=str(ROOT / "build" / "datasets"))
    ap.add_argument("--shared", default=None)
    ap.add_argument("--benchmark", default="TALNAbstractEn")
    ap.add_argument("--n-texts", type=int, default=600)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1, help="overhead: torch threads")
    ap.add_argument("--no-scores", action="store_true", help="backends: skip the task scores")
    ap.add_argument(
        "--bf16",
        action="store_true",
        help="backends: also torch bf16 (emulated, slow on CPUs without bf16 instructions)",
    )
    ap.add_argument(
        "--calibration",
        default=None,
        help=(
            "backends: JSON Lines file with a 'text' field calibrating the OpenVINO int8 static export (default: "
            "<shared>/ir/cranfield/corpus.jsonl, texts of no scored task)"
        ),
    )
    ap.add_argument(
        "--n-calibration", type=int, default=300, help="backends: calibration texts for the OpenVINO int8 static export"
    )
    ap.add_argument(
        "--ov-profile",
        action="store_true",
        help="backends: also print where each OpenVINO model spends its time (OpenVINO's per-node profiling)",
    )
    ap.add_argument(
        "--score-tasks",
        nargs="*",
        default=[],
        help=(
            "backends: more tasks to score besides --benchmark's two (e.g. PAN14KnownVerification, "
            "with MTEB_CONTRASTIVE_VERIFICATION set to its built folder's parent)"
        ),
    )
    ap.add_argument(
        "--subset-authors",
        type=int,
        default=None,
        help="run on TALNAbstractEnSub<N> (N paired author sets + N others) instead of --benchmark",
    )
    args = ap.parse_args()
    datasets = Path(args.datasets).resolve()
    if args.subset_authors:
        datasets.mkdir(parents=True, exist_ok=True)
        args.benchmark = _subset(datasets, args.shared, args.subset_authors)
    else:
        datasets = _datasets(args.datasets, args.shared)
    os.environ["MTEB_CONTRASTIVE_DATASETS"] = str(datasets)
    import mteb_contrastive  # noqa: F401
    from mteb_contrastive.catalog import dataset_task_classes as local_task_classes
    from mteb_contrastive.plugin.registration import register_tasks

    register_tasks(local_task_classes())  # folders built above, after the extension registered itself
    from bench_env import machine_lines

    print("\n".join(machine_lines()) + "\n")
    {"whole-task": whole_task, "overhead": overhead, "backends": backends}[args.bench](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
