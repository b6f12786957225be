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

import regex

from mteb_contrastive.compat import hf_lang_to_iso_lang_script
from mteb_contrastive.data.errors import DataError, position

logger = logging.getLogger(__name__)

#: ELTeC collection prefixes that are not ISO 639-3 codes: ISO 639-2/B (ROM = Romanian, ...) and the
#: Hungarian collection's two-letter ``HU`` (ids ``HU03130``).
ELTEC_PREFIXES = {"ROM": "ron", "CZE": "ces", "GRE": "ell", "GER": "deu", "FRE": "fra", "SLO": "slk", "HU": "hun"}
#: scripts told apart by :func:`text_script` (Unicode script property of the letters, ``regex``'s ``\p{...}``)
SCRIPTS = {"Latn": "Latin", "Cyrl": "Cyrillic", "Grek": "Greek"}
#: characters of a text read by :func:`text_script` (its start; a novel does not change script midway)
SCRIPT_SAMPLE_CHARS = 100_000
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
    """ELTeC ids start with the collection's language code: three letters (``ENG18400_Trollope`` ->
    ``eng``, ``SRP18590_JakovI_DjuradjB`` -> ``srp``) or, for Hungarian, two (``HU03130`` -> ``hun``,
    :data:`ELTEC_PREFIXES`); then a digit. None when the id has no such prefix."""
    m = re.match(r"^([A-Z]{2,3})\d", str(doc_id))
    if not m:
        return None
    return ELTEC_PREFIXES.get(m.group(1), m.group(1).lower())


def text_script(text: str, *, sample: int = SCRIPT_SAMPLE_CHARS) -> str | None:
    """The ISO 15924 code (:data:`SCRIPTS`) of the script more than half of the letters of
    ``text[:sample]`` are in; None when no script of :data:`SCRIPTS` has that majority (no letters,
    Han text, a mix). Example: ``"Pre srca"`` -> ``Latn``, ``"Пре срца"`` -> ``Cyrl``."""
    head = text[:sample]
    letters = len(regex.findall(r"\p{L}", head))
    counts = {code: len(regex.findall(rf"\p{{Script={name}}}", head)) for code, name in SCRIPTS.items()}
    code, n = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
    return code if letters and 2 * n > letters else None


def document_language(code: str | None, text: str) -> str | None:
    """The mteb language-script code of one document: ``code``'s language (any form
    :func:`mteb_language` reads) written in the script of its ``text`` (:func:`text_script`).

    A language written in two scripts gets the text's: ELTeC's Serbian ids all say ``srp``
    (mteb's default ``srp-Cyrl``), but two of its novels are in Latin script -> ``srp-Latn``. The
    default script is kept when the text has no letters of :data:`SCRIPTS`. None when ``code`` is
    unknown.
    """
    base = mteb_language(code) if code else None
    if base is None:
        return None
    script = text_script(text)
    return base if script is None else f"{base.split('-')[0]}-{script}"


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
