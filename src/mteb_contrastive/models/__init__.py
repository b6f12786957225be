"""Every model the extension adds to mteb: ``ModelMeta`` objects and how a model name becomes one.

* :mod:`.local` -- a local sentence-transformers (or cross-encoder) folder, ``-m ./my-model``;
* :mod:`.bundled` -- the bundled all-MiniLM-L6-v2 seeded into the HuggingFace cache;
* :mod:`.baselines` -- the classic baselines (BM25 variants, TF-IDF, word vectors, Doc2Vec);
* :mod:`.rerank` -- the two-stage models ``rerank/<first stage>+<reranker>@<k>``.

The package's face imports nothing: a command that needs one model module (``seed-model``:
:mod:`.bundled`) must not import mteb through the others before mteb is imported on purpose.
"""
