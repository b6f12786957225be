"""Edition normalisation: remove typographic artefacts of the source editions before a benchmark is built.

In the shared ELTeC novels some typography comes from the edition a novel was digitised from, not
from its author (data README sections 2c-2e): soft hyphens (U+00AD) in 50 Hungarian novels, dialogue
written with a hyphen-minus in about 64 Spanish and 77 Hungarian novels and with a dash in the
others, and two Serbian novels in Latin script among 98 in Cyrillic. When one edition (or
digitiser) gave all of an author's novels, such marks separate authors without being style: a
character-level model learns them. ``--normalise edition`` (``NORMALISATIONS["edition"]``):

* soft hyphens (U+00AD) removed;
* figure dash, en dash, em dash and horizontal bar (U+2012-U+2015) written as a hyphen-minus ``-``,
  so every dialogue dash looks alike;
* Serbian (``srp``) text in Latin script transliterated to Cyrillic, letter by letter (Gaj's Latin
  alphabet to Vuk's Cyrillic: ``lj``, ``nj``, ``dž`` first as one letter each). The digraph rule
  is the usual approximation: a word where ``n``+``j`` or ``d``+``ž`` are two letters (``injekcija``,
  ``nadživeti``) gets the single letter.

The texts change, so the dataset does: the builders record ``normalise`` in their parameters (and so
in the build id) only when it is used.
"""

from __future__ import annotations

import re

from mteb_contrastive.data.errors import LineRows
from mteb_contrastive.data.languages import document_language, text_script

#: the normalisations ``--normalise`` accepts
NORMALISATIONS = ("edition",)

_DASHES = str.maketrans({"\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-", "\u00ad": None})
_SRP_DIGRAPHS = {"lj": "љ", "nj": "њ", "dž": "џ", "Lj": "Љ", "LJ": "Љ", "Nj": "Њ", "NJ": "Њ", "Dž": "Џ", "DŽ": "Џ"}
_SRP_LETTERS = dict(
    zip(
        "abcčćdđefghijklmnoprsštuvzž",
        "абцчћдђефгхијклмнопрсштувзж",
    )
)
_SRP_LETTERS.update({k.upper(): v.upper() for k, v in list(_SRP_LETTERS.items())})
_SRP_RE = re.compile("|".join(sorted(_SRP_DIGRAPHS, key=len, reverse=True)) + "|[" + "".join(_SRP_LETTERS) + "]")


def serbian_latin_to_cyrillic(text: str) -> str:
    """Serbian Latin script -> Cyrillic (see the module docstring); other characters unchanged.

    Example: ``"Ljubav i džep"`` -> ``"Љубав и џеп"``.
    """
    return _SRP_RE.sub(lambda m: _SRP_DIGRAPHS.get(m.group()) or _SRP_LETTERS[m.group()], text)


def normalise_text(text: str, how: str, language: str | None = None) -> str:
    """``text`` with the normalisation ``how`` applied (:data:`NORMALISATIONS`; ``language``: the
    document's ISO 639 or mteb code, for the Serbian transliteration).

    Raises:
        ValueError: an unknown ``how``.
    """
    if how not in NORMALISATIONS:
        raise ValueError(f"--normalise {how!r}: choose one of {NORMALISATIONS}")
    out = text.translate(_DASHES)
    if language and str(language).split("-")[0] in ("srp", "sr") and text_script(out) == "Latn":
        out = serbian_latin_to_cyrillic(out)
    return out


def normalise_documents(docs: list[dict], how: str | None) -> list[dict]:
    """Documents ``{"text", "language"?, ...}`` with :func:`normalise_text` applied (``how`` None:
    unchanged); a document whose ``language`` is a language-script code gets the script of its new
    text (a transliterated Serbian novel becomes ``srp-Cyrl``).

    Raises:
        ValueError: an unknown ``how``.
    """
    if how is None:
        return docs
    out = LineRows(lines=getattr(docs, "lines", ()))  # rows read from a file keep their line numbers
    for d in docs:
        lang = d.get("language")
        text = normalise_text(d["text"], how, lang)
        if lang and "-" in str(lang) and text != d["text"]:
            lang = document_language(lang, text) or lang
        out.append({**d, "text": text, "language": lang})
    return out
