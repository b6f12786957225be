"""Word tokens for the classic baselines, for languages with and without spaces between words.

One function, :func:`word_tokens`, splits a (lower-cased) text into words for every baseline that
works on words (TF-IDF words and uni+bigrams, both BM25 scorers, word2vec, Doc2Vec). The
tokenizer is chosen per language, recognised by its script, run by run inside a text:

=================================================  ============================================
script of the run (Unicode blocks)                  tokens
=================================================  ============================================
Han ideographs (Chinese: ``cmn``, ``lzh``, ...;     jieba's dictionary segmentation
CJK Unified Ideographs + Ext. A-F, Compatibility)   (``jieba.lcut``, default mode, HMM on);
                                                    punctuation dropped
kana (Japanese), Thai, Lao, Khmer, Myanmar          character bigrams (a lone character is
(no word separator, no segmenter installed)         its own token)
every other script (Latin, Greek, Cyrillic, ...)    maximal runs of ``\\w`` (Unicode word
                                                    characters), as scikit-learn's default
=================================================  ============================================

``min_len`` drops tokens of the spaced scripts shorter than it: 2 reproduces scikit-learn's
default ``token_pattern`` ``\\b\\w\\w+\\b`` (TF-IDF, bm25s), 1 keeps one-letter words (gensim
baselines). A Chinese or Japanese token is kept whatever its length (one character is a word).

Sources: jieba (https://github.com/fxsjy/jieba); character n-grams for unsegmented scripts as in
scikit-learn's ``analyzer="char"`` and the PAN character baselines.

Example::

    >>> word_tokens("Windy London, 北京大学的学生")
    ['windy', 'london', '北京大学', '的', '学生']
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable

import regex

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
_NOSEP = "\u3040-\u30ff\u31f0-\u31ff\u0e00-\u0e7f\u0e80-\u0eff\u1780-\u17ff\u1000-\u109f"
#: the characters of scripts written without spaces between words (a character class body)
UNSEGMENTED_CHARS = _HAN + _NOSEP
_RUNS = re.compile(rf"(?P<han>[{_HAN}]+)|(?P<nosep>[{_NOSEP}]+)|(?P<word>(?:(?![{_HAN}{_NOSEP}])\w)+)")
_WORDLIKE = re.compile(r"\w")
# inside a whitespace token with an unsegmented script: a Han run, one character of another
# unsegmented script, a run of other word characters, a run of punctuation; combining marks
# (\p{M}) continue a word run (an NFD accent, a Devanagari vowel sign), as in \X
_TOKEN_RUNS = regex.compile(rf"[{_HAN}]+|[{_NOSEP}]|(?:(?![{_HAN}{_NOSEP}])[\w\p{{M}}])+|[^\w\p{{M}}{_HAN}{_NOSEP}]+")


@functools.lru_cache(maxsize=1)
def _jieba():
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    tok = jieba.Tokenizer()
    tok.initialize()
    return tok


#: ISO 639-3 codes of languages written without spaces between words (Chinese varieties, classical
#: Chinese, Japanese, Thai, Lao, Khmer, Burmese, Tibetan)
UNSEGMENTED_LANGUAGES = frozenset(
    {"zho", "cmn", "lzh", "yue", "wuu", "hak", "nan", "jpn", "tha", "lao", "khm", "mya", "bod"}
)


def unsegmented_language(languages: list[str]) -> bool:
    """True when one of ``languages`` (ISO 639-3, optionally ``-Script``) is in :data:`UNSEGMENTED_LANGUAGES`."""
    return any(str(lang).split("-")[0] in UNSEGMENTED_LANGUAGES for lang in languages)


def has_unsegmented_script(text: str) -> bool:
    """True when ``text`` contains Han, kana, Thai, Lao, Khmer or Myanmar characters."""
    return re.search(f"[{_HAN}{_NOSEP}]", text) is not None


def word_tokens(text: str, *, min_len: int = 1, lowercase: bool = True) -> list[str]:
    """The words of ``text`` (see the module docstring for the rule of each script).

    Args:
        text: any Unicode text.
        min_len: shortest token kept for the spaced scripts (1 or more).
        lowercase: lower-case first (``str.lower``).

    Returns:
        tokens in text order (possibly empty).
    """
    if lowercase:
        text = text.lower()
    out: list[str] = []
    for m in _RUNS.finditer(text):
        if m.lastgroup == "word":
            if len(m.group()) >= min_len:
                out.append(m.group())
        elif m.lastgroup == "han":
            out.extend(t for t in _jieba().lcut(m.group()) if _WORDLIKE.search(t))
        else:
            run = m.group()
            out.extend([run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)])
    return out


def grapheme_starts(text: str) -> list[int]:
    """Offsets where the extended grapheme clusters of ``text`` start (Unicode UAX #29, the ``regex``
    module's ``\\X``), plus ``len(text)``: the only places text may be cut or rotated, so a base
    character keeps its combining marks (accents in NFD text, Thai vowels and tone marks,
    Devanagari matras and viramas).

    Example::

        >>> grapheme_starts("e\u0301te")  # "é" written as e + combining acute
        [0, 2, 3, 4]
    """
    return [m.start() for m in regex.finditer(r"\X", text)] + [len(text)]


def grapheme_floor(text: str, i: int) -> int:
    """The start of the grapheme cluster that holds offset ``i`` (``i`` itself at a boundary; 0..len(text))."""
    if i <= 0:
        return 0
    if i >= len(text):
        return len(text)
    return grapheme_floors(text, [i])[0]


def grapheme_floors(text: str, offsets: Iterable[int]) -> list[int]:
    """:func:`grapheme_floor` of each of ``offsets`` (same order), the clusters found once: O(len(text) +
    k log len(text)) for k offsets, where k calls of :func:`grapheme_floor` are O(k len(text))."""
    starts = grapheme_starts(text)
    n = len(text)
    return [0 if i <= 0 else n if i >= n else starts[bisect.bisect_right(starts, i) - 1] for i in offsets]


def is_word(token: str) -> bool:
    """True when ``token`` holds a letter or digit (Unicode ``\\w``), False for punctuation only."""
    return _WORDLIKE.search(token) is not None


def word_pieces(text: str, *, words_only: bool = False) -> list[str]:
    """``text`` cut into substrings at the starts of its :func:`word_spans`: piece ``i`` runs from
    span ``i``'s start (the first piece from 0) to the next span's start (the last to the end), so
    ``"".join(word_pieces(text)) == text`` and nothing is ever inserted. ``words_only``: only spans
    that are words (:func:`is_word`) start a piece, so punctuation stays with the word before it.
    The one cutting rule of the chunker (``build-verification``) and of Kirby's span rotation."""
    starts = [a for a, b in word_spans(text) if not words_only or is_word(text[a:b])]
    cuts = [0, *starts[1:], len(text)] if starts else []
    return [text[a:b] for a, b in zip(cuts, cuts[1:])]


def word_spans(text: str) -> list[tuple[int, int]]:
    """Character offsets ``(start, end)`` of the words of ``text``, for cutting it into substrings.

    Whitespace-separated tokens are words; inside a token, a run of Han characters is split by
    jieba (``Tokenizer.tokenize``, default mode, offsets into the run) and each grapheme cluster
    of the other unsegmented scripts (kana, Thai, Lao, Khmer, Myanmar) is a word, so that a text
    written without spaces is cut between words and ``text[start:end]`` never inserts a separator.
    Punctuation attached to a spaced word stays in it, unless the whitespace token also holds an
    unsegmented script: then each run of punctuation is a span of its own (not a word).
    A span never starts or ends inside a grapheme cluster (:func:`grapheme_starts`): a base
    character keeps its combining marks (a Thai vowel or tone mark, a Devanagari vowel sign, an
    NFD accent), two spans that would share a cluster become one.

    Example::

        >>> t = "我喜欢苹果。」Hello world"
        >>> [t[a:b] for a, b in word_spans(t)]
        ['我', '喜欢', '苹果', '。」', 'Hello', 'world']
        >>> t = "กินข้าว"  # Thai: ก ิ น ข ้ า ว, the vowel ิ and the tone mark ้ stay with their consonant
        >>> [t[a:b] for a, b in word_spans(t)]
        ['กิ', 'น', 'ข้', 'า', 'ว']
    """
    return _whole_graphemes(text, _raw_word_spans(text))


def _whole_graphemes(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` (in text order) widened to whole grapheme clusters; spans that then overlap merge."""
    if not spans:
        return spans
    starts = grapheme_starts(text)
    out: list[tuple[int, int]] = []
    for a, b in spans:
        a = starts[bisect.bisect_right(starts, a) - 1]
        b = starts[bisect.bisect_left(starts, b)]
        if out and a < out[-1][1]:
            out[-1] = (out[-1][0], max(b, out[-1][1]))
        else:
            out.append((a, b))
    return out


def _raw_word_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for tok in re.finditer(r"\S+", text):
        word = tok.group()
        if not has_unsegmented_script(word):
            spans.append(tok.span())
            continue
        base = tok.start()
        for run in _TOKEN_RUNS.finditer(word):
            a = base + run.start()
            if re.match(f"[{_HAN}]", run.group()):
                spans.extend((a + s, a + e) for _, s, e in _jieba().tokenize(run.group()))
            else:
                spans.append((a, a + len(run.group())))
    return spans


def sklearn_word_tokens(text: str) -> list[str]:
    """:func:`word_tokens` with ``min_len=2`` and no lower-casing (scikit-learn lower-cases first)."""
    return word_tokens(text, min_len=2, lowercase=False)


def whitespace_tokens(text: str) -> list[str]:
    """The HALvest authors' BM25 tokens: lower-cased whitespace-separated words.

    A whitespace token in an unsegmented script (e.g. a whole Chinese clause) is split further
    by :func:`word_tokens`, so that the authors' BM25 also works on Chinese; on spaced scripts this
    is exactly ``text.lower().split()``.
    """
    out: list[str] = []
    for tok in text.lower().split():
        if has_unsegmented_script(tok):
            out.extend(word_tokens(tok, lowercase=False))
        else:
            out.append(tok)
    return out
