"""QuoteR's BM25 tokenizer: characters for Chinese, the baselines' per-script word rule elsewhere."""

import re

from mteb_contrastive.data.tokenize import tokenize


def test_spaced_scripts_keep_scikit_learns_word_rule_on_real_text(shared):
    lines = (shared / "quoter" / "en_kjv_in_novels.txt").read_text(encoding="utf-8").splitlines()
    for line in lines[:200]:
        assert tokenize(line, "eng-Latn") == re.findall(r"(?u)\b\w\w+\b", line.lower())


def test_unspaced_scripts_outside_the_character_languages_are_not_one_token_per_clause():
    # before: "ひらがなです" was a single token under the word rule
    assert tokenize("ひらがなです。Hello", "jpn-Jpan") == ["ひら", "らが", "がな", "なで", "です", "hello"]
    assert tokenize("學而時習之，不亦說乎", "lzh-Hant") == ["學", "而", "時", "習", "之", "不", "亦", "說", "乎"]
