"""Training (docs/training.md): Kirby's contrastive recipe (:mod:`.contrastive`, :mod:`.sampler`,
:mod:`.data`, :mod:`.validation`), its pair-classification rival and the trained rerankers
(:mod:`.cross_encoder`), and the ``mteb-contrastive train*`` commands (:mod:`.cli`)."""
