"""Languages of built datasets: read from the data, else stated by the caller -- never a silent default.

Rule (issue 9, section 7): a dataset's language is read from the data where the data has it (a
row's ``language`` field; ELTeC's id prefix such as ``FRA18430_...``); otherwise the command
requires it (``--language`` / ``--mteb-language`` / ``--languages``), and the Python builders
state the fallback they use in one log line. A caller's value that contradicts the data is an
error, not an override.

Codes: rows may give ISO 639-1 (``fr``), ISO 639-3 (``fra``) or mteb's language-script form
(``fra-Latn``); tasks record the mteb form, the script being mteb's default for the language.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Sequence
from typing import Any

from mteb_contrastive.compat import hf_lang_to_iso_lang_script
from mteb_contrastive.data.errors import DataError, position

logger = logging.getLogger(__name__)

#: ELTeC collection prefixes that are ISO 639-2/B codes, not ISO 639-3 (ELTeC: ROM = Romanian, ...).
ELTEC_PREFIXES = {"ROM": "ron", "CZE": "ces", "GRE": "ell", "GER": "deu", "FRE": "fra", "SLO": "slk"}
_MTEB_FORM = re.compile(r"^[a-z]{3}-[A-Z][a-z]{3}$")


def mteb_language(code: str) -> str | None:
    """``fr`` / ``fra`` / ``fra-Latn`` -> ``fra-Latn`` (mteb's default script); None when unknown."""
    if not isinstance(code, str) or not code.strip():
        return None
    out = hf_lang_to_iso_lang_script(code.strip())
    return out if out and _MTEB_FORM.match(out) else None


@functools.lru_cache(maxsize=256)
def splitter_language(code: str) -> str:
    """The two-letter code the sentence splitter takes (``fra-Latn`` -> ``fr``; unknown: as given)."""
    import json
    from pathlib import Path

    import mteb.languages as ml

    iso3 = code.split("-")[0].lower()
    if len(iso3) == 2:
        return iso3
    table = json.loads((Path(ml.__file__).parent / "iso_639_1_to_3.json").read_text(encoding="utf-8"))
    back = {v: k for k, v in table.items()}
    return back.get(iso3, iso3)


def eltec_language(doc_id: str) -> str | None:
    """ELTeC ids start with the collection's language code (``ENG18400_Trollope`` -> ``eng``)."""
    m = re.match(r"^([A-Z]{3})\d", str(doc_id))
    if not m:
        return None
    return ELTEC_PREFIXES.get(m.group(1), m.group(1).lower())


def languages_from_rows(rows: Sequence[dict[str, Any]], source: object, field: str = "language") -> list[str]:
    """The sorted distinct mteb codes of the rows' ``field``; ``[]`` when no row has one.

    Raises:
        DataError: a code mteb does not know (names the row: its line for rows read from a file,
            :func:`~mteb_contrastive.data.errors.position`), or some rows with a language and some
            without (names the first row without).
    """
    found: dict[str, int] = {}
    missing = None
    n = 0
    for i, r in enumerate(rows):
        n += 1
        v = r.get(field)
        if v in (None, ""):
            missing = i if missing is None else missing
            continue
        code = mteb_language(v)
        if code is None:
            raise DataError(
                source,
                f"unknown language code {v!r}; write an ISO 639-1/639-3 code (fr, fra) or an mteb code (fra-Latn)",
                **position(rows, i),
                field=field,
            )
        found.setdefault(code, i)
    if found and missing is not None:
        raise DataError(
            source,
            f"no language, while other rows have one ({sorted(found)}); give every row a {field!r}",
            **position(rows, missing),
            field=field,
        )
    return sorted(found)


def resolve_languages(
    from_data: Sequence[str], given: Sequence[str] | None, *, source: object, option: str
) -> list[str] | None:
    """The dataset's mteb language codes: the data's, else the caller's; None when neither says.

    Raises:
        DataError: ``given`` holds a code mteb does not know, or contradicts the data.
    """
    if given:
        norm = []
        for g in given:
            code = mteb_language(g)
            if code is None:
                raise DataError(
                    source, f"{option} {g!r} is not a language code mteb knows; give e.g. eng-Latn or fra-Latn"
                )
            norm.append(code)
        given = sorted(set(norm))
    if from_data:
        if given and set(given) != set(from_data):
            raise DataError(
                source,
                f"the rows' language is {', '.join(from_data)} but {option} says {', '.join(given)}; "
                f"drop {option} or fix the rows",
            )
        return list(from_data)
    return list(given) if given else None


def stated_fallback(codes: list[str] | None, default: Sequence[str], *, source: object, option: str) -> list[str]:
    """``codes``, or ``default`` with one warning line saying so (Python API builders)."""
    if codes:
        return codes
    logger.warning(
        "%s: the data names no language; building as %s (pass %s to state it)", source, ", ".join(default), option
    )
    return list(default)
