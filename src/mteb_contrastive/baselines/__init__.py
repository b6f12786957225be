"""Classic baselines as mteb models (BM25, TF-IDF, char n-grams, word vectors, Doc2Vec, Delta, compression).

Registered in mteb's model registry (their metas: :mod:`mteb_contrastive.models.baselines`), so that
``mteb run -m mteb-contrastive/tfidf-words -t <task>`` works in a fresh process:

==========================================  ==========================================================
``mteb-contrastive/bm25-halvest``           BM25 as the HALvest authors ran it (rank_bm25 Okapi IDF,
                                            background corpus) on triplet tasks; mteb's bm25s search
                                            on retrieval tasks
``mteb-contrastive/bm25s-triplets``         a correct BM25 (bm25s, Lucene IDF, k1 1.5, b 0.75) on the
                                            same background corpus; bm25s on retrieval tasks
``mteb-contrastive/tfidf-words``            TF-IDF bag of words, cosine
``mteb-contrastive/tfidf-topic``            TF-IDF bag of words without the corpus's 150 most frequent
                                            words (Delta's style features): the topic-only reference
``mteb-contrastive/tfidf-bigrams``          TF-IDF bag of unigrams + word bigrams, cosine
``mteb-contrastive/tfidf-char3``            TF-IDF character 3-grams, cosine (PAN baseline)
``mteb-contrastive/word2vec-avg``           mean of skip-gram word vectors, cosine
``mteb-contrastive/doc2vec``                Paragraph Vector, PV-DM (concatenation) + PV-DBOW, cosine
``mteb-contrastive/doc2vec-dm-concat``      Paragraph Vector, PV-DM (concatenation) alone, cosine
``mteb-contrastive/doc2vec-dm-mean-dbow``   PV-DM (mean of context) + PV-DBOW, cosine
``mteb-contrastive/burrows-delta``          Burrows' Delta on the 150 most frequent words (-Delta)
``mteb-contrastive/cosine-delta``           Cosine Delta: cosine of the same z-scores
``mteb-contrastive/ppmd-cbc``               PPMd compression-based cosine (PAN's compression baseline)
==========================================  ==========================================================

They are pair scorers and mteb search models, not encoders (:mod:`mteb_contrastive.baselines.base`).
What each is fitted on is in its ``ModelMeta.public_training_data`` and, per result, in the
``fit_*`` entries of the scores. Each baseline's revision is a fingerprint of what it computes
(name, class, parameters, library versions and its outputs on a fixed probe,
:mod:`mteb_contrastive.baselines.revision`): a pure refactor keeps it, a change of a score moves it.
"""

from __future__ import annotations

from mteb_contrastive.baselines.revision import baseline_revision
from mteb_contrastive.baselines.table import BASELINES, load_baseline

__all__ = ["BASELINES", "baseline_revision", "load_baseline"]
