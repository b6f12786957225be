"""One per-language tokenizer for the lexical models: ``tokenize(text, lang) -> list[str]``.

* Chinese (``lzh`` classical, ``cmn`` Mandarin, ``zho`` / ``zh`` macro-language; any script
  suffix, e.g. ``lzh-Hans``): one token per character that is a letter or a digit (Unicode ``\\w``,
  lower-cased; punctuation and spaces dropped). Chinese is written without spaces, so a word rule
  makes a whole clause one token; mteb's ``BM25Search`` has a character rule for ``zho``/``cmn``
  only, not for ``lzh``.
* every other language: the word rule of the project's baselines,
  :func:`mteb_contrastive.data.text.word_tokens` with ``min_len=2`` on the lower-cased text
  (on spaced scripts exactly scikit-learn's default ``(?u)\\b\\w\\w+\\b``; a Japanese, Thai, ...
  run gives character bigrams and a Han run jieba words instead of one whole-clause token).

Example:
    >>> tokenize("學而時習之，不亦說乎", "lzh-Hant")
    ['學', '而', '時', '習', '之', '不', '亦', '說', '乎']
    >>> tokenize("The Lord is my shepherd; I shall not want.", "eng-Latn")
    ['the', 'lord', 'is', 'my', 'shepherd', 'shall', 'not', 'want']
"""

from __future__ import annotations

import re

from mteb_contrastive.data.text import word_tokens

#: ISO 639 codes tokenised by character
CHARACTER_LANGUAGES = frozenset({"lzh", "cmn", "zho", "zh"})
_CHAR = re.compile(r"(?u)\w")


def language_code(lang: str) -> str:
    """The ISO 639 part of a language tag: ``"lzh-Hans"`` -> ``"lzh"``, ``"zh_CN"`` -> ``"zh"``."""
    return re.split(r"[-_]", lang.strip(), maxsplit=1)[0].lower()


def is_character_language(lang: str) -> bool:
    """True for the languages tokenised by character (:data:`CHARACTER_LANGUAGES`)."""
    return language_code(lang) in CHARACTER_LANGUAGES


def tokenize(text: str, lang: str) -> list[str]:
    """Tokens of ``text`` in language ``lang`` (an ISO 639 code, optionally with a script: ``cmn-Hans``)."""
    if is_character_language(lang):
        return _CHAR.findall(text.lower())
    return word_tokens(text, min_len=2)
