"""One per-language tokenizer for the lexical models: ``tokenize(text, lang) -> list[str]``.

* Chinese (``lzh`` classical, ``cmn`` Mandarin, ``zho`` / ``zh`` macro-language; any script
  suffix, e.g. ``lzh-Hans``): one token per character that is a letter or a digit (Unicode ``\\w``,
  lower-cased; punctuation and spaces dropped). Chinese is written without spaces, so a word rule
  makes a whole clause one token; mteb's ``BM25Search`` has a character rule for ``zho``/``cmn``
  only, not for ``lzh``.
* every other language: the word rule of the project's sparse baselines (scikit-learn's default
  ``(?u)\\b\\w\\w+\\b`` on the lower-cased text; :mod:`mteb_contrastive.baselines.sparse`).

Example:
    >>> tokenize("學而時習之，不亦說乎", "lzh-Hant")
    ['學', '而', '時', '習', '之', '不', '亦', '說', '乎']
    >>> tokenize("The Lord is my shepherd; I shall not want.", "eng-Latn")
    ['the', 'lord', 'is', 'my', 'shepherd', 'shall', 'not', 'want']
"""

from __future__ import annotations

import re

#: ISO 639 codes tokenised by character
CHARACTER_LANGUAGES = frozenset({"lzh", "cmn", "zho", "zh"})
_WORD = re.compile(r"(?u)\b\w\w+\b")
_CHAR = re.compile(r"(?u)\w")


def language_code(lang: str) -> str:
    """The ISO 639 part of a language tag: ``"lzh-Hans"`` -> ``"lzh"``, ``"zh_CN"`` -> ``"zh"``."""
    return re.split(r"[-_]", lang.strip(), maxsplit=1)[0].lower()


def is_character_language(lang: str) -> bool:
    """True for the languages tokenised by character (:data:`CHARACTER_LANGUAGES`)."""
    return language_code(lang) in CHARACTER_LANGUAGES


def tokenize(text: str, lang: str) -> list[str]:
    """Tokens of ``text`` in language ``lang`` (an ISO 639 code, optionally with a script: ``cmn-Hans``)."""
    text = text.lower()
    return _CHAR.findall(text) if is_character_language(lang) else _WORD.findall(text)
