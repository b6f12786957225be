"""Two report tables: content independence beside every authorship score, and authorship per language.

**Content independence** (:mod:`mteb_contrastive.metrics.content`, ``docs/content-independence.md``):
one row per authorship result (model x task x subset) that has topic-controlled items: the score on
all items and on the topic-controlled ones, their chance levels, the same two for the topic-only
reference ``mteb-contrastive/tfidf-words`` on the same dataset revision, and the topic reliance
and topic share. Scores per family:

==================  =========================  ===================================  ==========================
result              all items                  topic-controlled items               chance (all / controlled)
==================  =========================  ===================================  ==========================
author triplets     ``accuracy``               ``accuracy_topic_controlled``        0.5 / 0.5
author retrieval    ``ndcg_at_10``             ``ndcg_at_10_topic_controlled``      ``random_ndcg_at_10`` /
                                                                                    ``random_ndcg_at_10_topic_controlled``
verification        ``auc`` (test pairs)       ``auc_topic_controlled``             0.5 / 0.5
==================  =========================  ===================================  ==========================

**Per language** (the ELTeC benchmarks ``ELTeC<Lang>``, five languages): one row per model, per
language the verification AUC and PAN overall (Platt + abstention), and the attribution main score
where those results exist. A language is *flagged* where a character-level baseline
(:data:`mteb_contrastive.baselines.table.CHARACTER_LEVEL`: character 3-gram TF-IDF, PPMd compression)
beats every model that is not a baseline **by its interval**: the paired comparison of the two on
that task is "better" for the baseline (the 95% interval of the difference excludes 0; a higher
point estimate within noise is no flag, and without comparisons there is no flag). On these novels
edition artefacts (Hungarian soft hyphens, hyphen-minus vs dash dialogue in Spanish and Hungarian)
are author cues that are not style, so such a win should be checked on a build with ``--normalise
edition`` -- an option of ``build-verification`` and ``build-triplets`` only (:data:`EDITION_ADVICE`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mteb_contrastive.baselines.table import BASELINES, CHARACTER_LEVEL, TOPIC_REFERENCE
from mteb_contrastive.metrics.content import content_independence
from mteb_contrastive.report.reader import ScoreRow


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def ci_keys(scores: dict[str, Any]) -> tuple[str, str, float | None, float | None] | None:
    """(all-items key, topic-controlled key, chance on all, chance on controlled) of a result; None
    when it has no topic-controlled part (see the module docstring's table)."""
    if "accuracy" in scores and ("n_triplets_topic_controlled" in scores or "accuracy_topic_controlled" in scores):
        return "accuracy", "accuracy_topic_controlled", 0.5, 0.5
    if "ndcg_at_10_topic_controlled" in scores or "random_ndcg_at_10_topic_controlled" in scores:
        return (
            "ndcg_at_10",
            "ndcg_at_10_topic_controlled",
            _num(scores.get("random_ndcg_at_10")),
            _num(scores.get("random_ndcg_at_10_topic_controlled")),
        )
    if "auc" in scores and "n_pairs_topic_controlled" in scores:
        return "auc", "auc_topic_controlled", 0.5, 0.5
    return None


def content_rows(rows: list[ScoreRow]) -> list[dict[str, Any]]:
    """One dict per result with topic-controlled items (module docstring), reference matched by task,
    split, subset and dataset revision."""
    ref = {(r.task, r.split, r.subset, r.dataset_revision): r.scores for r in rows if r.model == TOPIC_REFERENCE}
    out = []
    for r in rows:
        keys = ci_keys(r.scores)
        if keys is None:
            continue
        all_key, tc_key, c_all, c_tc = keys
        t = ref.get((r.task, r.split, r.subset, r.dataset_revision), {})
        s_all, s_tc = _num(r.scores.get(all_key)), _num(r.scores.get(tc_key))
        t_all, t_tc = _num(t.get(all_key)), _num(t.get(tc_key))
        figures = (
            content_independence(s_all, s_tc, c_all, c_tc, t_all)
            if c_all is not None and c_tc is not None
            else {"ci": s_tc, "topic_reliance": None, "topic_share": None}
        )
        n_tc = next((r.scores[k] for k in r.scores if k.startswith("n_") and k.endswith("_topic_controlled")), None)
        out.append(
            {
                "task": r.task,
                "split": r.split,
                "subset": r.subset,
                "model": r.model,
                "score": all_key,
                "all": s_all,
                "topic_controlled": s_tc,
                "chance_all": c_all,
                "chance_topic_controlled": c_tc,
                "reference_all": t_all,
                "reference_topic_controlled": t_tc,
                "reference_run": bool(t),
                "n_topic_controlled": n_tc,
                "withheld": r.scores.get("topic_controlled_withheld"),
                **figures,
            }
        )
    return out


def _f(v: Any, digits: int = 3) -> str:
    return "n/a" if v is None else f"{v:.{digits}f}" if isinstance(v, float) else str(v)


def render_content(rows: list[dict[str, Any]]) -> list[str]:
    """Markdown lines of the content-independence table (empty when no row)."""
    if not rows:
        return []
    out = [
        "| task | subset | model | score | all | topic-controlled | chance (all / controlled) | "
        f"{TOPIC_REFERENCE} all | {TOPIC_REFERENCE} controlled | topic reliance | topic share | controlled items |",
        "|---" * 12 + "|",
    ]
    for c in rows:
        ref_all = _f(c["reference_all"]) if c["reference_run"] else "not run"
        ref_tc = _f(c["reference_topic_controlled"]) if c["reference_run"] else "not run"
        tc = _f(c["topic_controlled"]) if c["withheld"] is None else f"n/a ({c['withheld']})"
        out.append(
            f"| {c['task']} | {c['subset']} | {c['model']} | {c['score']} | {_f(c['all'])} | {tc} "
            f"| {_f(c['chance_all'])} / {_f(c['chance_topic_controlled'])} | {ref_all} | {ref_tc} "
            f"| {_f(c['topic_reliance'])} | {_f(c['topic_share'], 2)} | {_f(c['n_topic_controlled'])} |"
        )
    return out


# ------------------------------------------------------------------------------ per language

_ELTEC = re.compile(r"^ELTeC([A-Z][a-z]{2})([A-Za-z0-9]*?)(Verification|Attribution)$")


def is_baseline(model: str) -> bool:
    """A classic baseline (this project's table, or mteb's BM25) rather than a model."""
    return model in BASELINES or model.startswith("mteb/baseline") or model.startswith("mteb-contrastive/bm25")


#: the build to compare with where a character-level baseline wins, per kind: (command, option, value);
#: ``build-attribution`` has no ``--normalise`` option, so an attribution win is checked on the
#: verification benchmark of the same novels (tests check that each command accepts its option)
EDITION_ADVICE: dict[str, tuple[str, str, str]] = {
    "verification": ("build-verification", "--normalise", "edition"),
    "attribution": ("build-verification", "--normalise", "edition"),
}

#: ``beats(task, split, subset, winner, loser)``: the paired comparison says ``winner`` is better (interval)
Beats = Callable[[str, str, str, str, str], bool]


def edition_advice(kind: str) -> str:
    """The sentence of a flag of ``kind``: which build to compare with (:data:`EDITION_ADVICE`)."""
    cmd, opt, value = EDITION_ADVICE[kind]
    if kind == "verification":
        return f"compare with a build made with `{cmd} {opt} {value}`"
    return (
        f"`build-attribution` has no `{opt}` option: compare with the verification benchmark of the same "
        f"novels built with `{cmd} {opt} {value}`"
    )


def language_rows(rows: list[ScoreRow], beats: Beats | None = None) -> dict[str, Any]:
    """The per-language table's content: ``{"languages": [...], "models": [...], "cells":
    {(model, language, kind): {"main", "main_name", "auc"}}, "flags": {(language, kind): baseline}}``,
    from the test results of tasks named ``ELTeC<Lang>[<variant>]Verification`` / ``...Attribution``
    (a variant, e.g. a build with ``--normalise edition`` named ``ELTeCHunEdition``, is a column of its own).

    A flag needs ``beats`` (the report's paired comparisons): the baseline must beat every model by
    the interval; without ``beats`` nothing is flagged."""
    cells: dict[tuple[str, str, str], dict[str, Any]] = {}
    for r in rows:
        m = _ELTEC.match(r.task)
        if m is None or r.split != "test":
            continue
        lang = r.languages[0].split("-")[0] if r.languages else m.group(1).lower()
        lang += f" ({m.group(2)})" if m.group(2) else ""  # a variant build, e.g. ELTeCHunEditionVerification
        cells[(r.model, lang, m.group(3).lower())] = {
            "task": r.task,
            "subset": r.subset,
            "main": r.main,
            "main_name": r.main_score_name,
            "auc": _num(r.scores.get("auc")),
            "chance": _num(r.scores.get(f"random_{r.main_score_name}")),
        }
    languages = sorted({k[1] for k in cells})
    models = sorted({k[0] for k in cells}, key=lambda x: (is_baseline(x), x))
    flags = {}
    for lang in languages:
        for kind in ("verification", "attribution"):
            here = {
                mod: c["main"]
                for (mod, lg, kd), c in cells.items()
                if lg == lang and kd == kind and c["main"] is not None
            }
            models_here = [mod for mod in here if not is_baseline(mod)]
            if beats is None or not models_here:
                continue
            for _, char in sorted(((-v, mod) for mod, v in here.items() if mod in CHARACTER_LEVEL)):
                c = cells[(char, lang, kind)]
                if all(beats(c["task"], "test", c["subset"], char, mod) for mod in models_here):
                    flags[(lang, kind)] = char
                    break
    return {"languages": languages, "models": models, "cells": cells, "flags": flags}


def render_languages(table: dict[str, Any]) -> list[str]:
    """Markdown lines of the per-language table (empty when no ELTeC result), flags below it."""
    if not table["cells"]:
        return []
    kinds = [k for k in ("verification", "attribution") if any(c[2] == k for c in table["cells"])]
    head, cols = ["model"], []
    for kind in kinds:
        for lang in table["languages"]:
            if any(c[1] == lang and c[2] == kind for c in table["cells"]):
                cols.append((lang, kind))
                head.append(f"{lang} {kind} (AUC / main)" if kind == "verification" else f"{lang} {kind}")
    out = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for model in table["models"]:
        cells = [model]
        for lang, kind in cols:
            c = table["cells"].get((model, lang, kind))
            if c is None:
                cells.append("")
            elif kind == "verification":
                cells.append(f"{_f(c['auc'])} / {_f(c['main'])}")
            else:
                cells.append(_f(c["main"]) + (f" (chance {_f(c['chance'])})" if c["chance"] is not None else ""))
            if (lang, kind) in table["flags"] and table["flags"][(lang, kind)] == model:
                cells[-1] += " (!)"
        out.append("| " + " | ".join(cells) + " |")
    main_names = sorted({c["main_name"] for c in table["cells"].values()})
    out += [
        "",
        f"Main scores: {', '.join(main_names)}; verification AUC = ROC AUC of the test pair scores (chance 0.5).",
    ]
    for (lang, kind), base in sorted(table["flags"].items()):
        out.append(
            f"(!) {lang} {kind}: the character-level baseline {base} beats every model (each paired comparison's "
            "verdict: the 95% interval of the difference above 0 and the Holm-adjusted test below 0.05). "
            "On these novels edition artefacts (soft hyphens, hyphen-minus or dash dialogue, "
            f"script) are author cues that are not style; {edition_advice(kind)}."
        )
    return out
