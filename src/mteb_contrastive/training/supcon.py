"""Kirby's loss as a sentence-transformers loss: pytorch-metric-learning's ``SupConLoss`` over every text of a batch.

What the authors run (github.com/petekirby/contrastive-av): ``models/loss_defaults.py:26-32``
(``supcon`` = ``pytorch_metric_learning.losses.SupConLoss``, temperature 0.05 by default, 0.01 in
every final config, e.g. ``configs/tinybert_contrastive_final.yaml:33-35``), called on the
embeddings of **all** ``2B`` texts of a batch with their author labels
(``models/transformer_contrastive_module.py:83-98``), so every text is an anchor. With unit
embeddings ``z``, labels ``y``, temperature ``T`` and ``s_ij = z_i . z_j``:

    l_i = -(1 / |P(i)|) sum_{p in P(i)} [ s_ip / T - log sum_{a != i} exp(s_ia / T) ],   P(i) = {j != i : y_j = y_i}

and the batch loss is the mean of ``l_i`` over the anchors with ``l_i > 0`` (the library's
``AvgNonZeroReducer``: at T = 0.01 an easy anchor's term underflows to exactly 0 and drops out of
the mean). With two texts per author (m = 2) each anchor has one positive and ``2B - 2``
negatives: the symmetric NT-Xent of Chen et al. (2020), the "InfoNCE" of the paper.

:class:`SupConLoss` calls the library itself (``pytorch-metric-learning``, the authors' 2.9.0), on
the model's ``sentence_embedding`` (the library's cosine similarity normalises them again: harmless).
:class:`CachedSupConLoss` is the same loss through sentence-transformers' GradCache machinery
(``CachedLossMixin``: embed in mini-batches without gradients, compute the loss and its gradient
with respect to the embeddings over the whole batch, then re-embed each mini-batch with gradients),
the analogue of the authors' ``ChunkedTrainStep`` (``models/torch_utils.py:73-123``, their
``microbatch_size``): the same value and gradient in memory bounded by the mini-batch.

Test (``tests/test_training.py``): on the 3-author example of the project's notes (2-d unit
vectors at 0, 50 | 40, 140 | 180, 270 degrees, T = 0.1) the loss is 5.7309153 by hand and from the library.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch
from pytorch_metric_learning import losses as pml_losses
from sentence_transformers.base.losses.gradcache import CachedLossMixin
from torch import Tensor, nn

CITATION = """@misc{kirby2026contrastive, title={Contrastive Learning for Authorship Verification}, author={Kirby, P.}}
@inproceedings{khosla2020supcon, title={Supervised Contrastive Learning}, author={Khosla, P. and others},
year={2020}}"""


class SupConLoss(nn.Module):
    """pytorch-metric-learning's ``SupConLoss(temperature)`` on the embeddings of a batch's ``text`` column
    and its ``label`` column (the author numbers), as a sentence-transformers loss.

    Args:
        model: the ``SentenceTransformer`` being trained.
        temperature: > 0 (the authors' final configs: 0.01).
    """

    def __init__(self, model: Any, temperature: float = 0.01) -> None:
        super().__init__()
        self.model = model
        self.temperature = float(temperature)
        self.loss_fn = pml_losses.SupConLoss(temperature=self.temperature)

    def forward(self, sentence_features: Iterable[dict[str, Tensor]], labels: Tensor) -> Tensor:
        features = list(sentence_features)
        if len(features) != 1:
            raise ValueError(f"SupConLoss reads one text column and a label column, got {len(features)} text columns")
        embeddings = self.model(features[0])["sentence_embedding"]
        return self.loss_fn(embeddings, labels.to(embeddings.device))

    def get_config_dict(self) -> dict[str, Any]:
        return {"temperature": self.temperature, "library": "pytorch_metric_learning.losses.SupConLoss"}

    @property
    def citation(self) -> str:
        return CITATION


class CachedSupConLoss(CachedLossMixin, nn.Module):
    """:class:`SupConLoss` with gradient caching over mini-batches of ``mini_batch_size`` texts (module docstring)."""

    def __init__(self, model: Any, temperature: float = 0.01, mini_batch_size: int = 32) -> None:
        super().__init__()
        self.model = model
        self.temperature = float(temperature)
        self.mini_batch_size = int(mini_batch_size)
        self.loss_fn = pml_losses.SupConLoss(temperature=self.temperature)

    def calculate_loss(
        self, reps: list[list[Tensor]], labels: Tensor | None = None, *, with_backward: bool = False
    ) -> Tensor:
        embeddings = torch.cat(reps[0])
        loss = self.loss_fn(embeddings, labels.to(embeddings.device))
        if with_backward:
            loss.backward()
            loss = loss.detach()
        return loss

    def forward(self, sentence_features: Iterable[dict[str, Tensor]], labels: Tensor) -> Tensor:
        features = list(sentence_features)
        if len(features) != 1:
            raise ValueError(f"SupConLoss reads one text column and a label column, got {len(features)} text columns")
        return self.forward_cached(features, labels)

    def get_config_dict(self) -> dict[str, Any]:
        return {
            "temperature": self.temperature,
            "mini_batch_size": self.mini_batch_size,
            "library": "pytorch_metric_learning.losses.SupConLoss",
        }

    @property
    def citation(self) -> str:
        return CITATION
