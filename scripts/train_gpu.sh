#!/usr/bin/env bash
# The larger settings of Kirby's recipe, for a machine with a CUDA GPU (not required by anything else).
#
#   scripts/train_gpu.sh [OUT=build/training-gpu] [SHARED=../shared/data]
#
# Same commands as the CPU ablation of docs/training.md, with the paper-scale knobs turned up:
# context 512 tokens (the MiniLM limit), 128 texts per batch (64 authors x 2) through the
# gradient-cache loss (mini-batches of 32), 4 passes over the authors per epoch, 10 epochs; the
# pair-classification rival on the same data and budget; then `mteb run` of both on the
# verification benchmarks. Training data: PAN 2014 known documents minus every author of
# PAN14Known's validation/test splits, plus the TALN French full texts (first author; TALN is
# not among the evaluated verification benchmarks). ELTeCEng has no train split (its 79 authors
# are all in validation/test) and is evaluated cross-corpus.
set -euo pipefail
OUT=${1:-build/training-gpu}
SHARED=${2:-${MTEB_CONTRASTIVE_SHARED:-../shared/data}}
export HF_HUB_OFFLINE=1 MTEB_CONTRASTIVE_VERIFICATION=${MTEB_CONTRASTIVE_VERIFICATION:-build/verification}

python - <<'EOF' || { echo "error: no CUDA GPU visible (torch.cuda.is_available() is False); use the CPU commands of docs/training.md" >&2; exit 2; }
import sys, torch
sys.exit(0 if torch.cuda.is_available() else 1)
EOF

[ -d "$MTEB_CONTRASTIVE_VERIFICATION/PAN14Known" ] || mteb-contrastive build-pan-benchmarks --shared "$SHARED" --out "$MTEB_CONTRASTIVE_VERIFICATION"

COMMON=(--docs "pan14=$SHARED/pan/pan14_known.jsonl.gz" --docs "taln=$SHARED/taln/articles.jsonl.gz"
        --holdout "$MTEB_CONTRASTIVE_VERIFICATION/PAN14Known"
        --context-length 512 --batch-size 128 --passes 4 --epochs 10 --learning-rate 2e-5 --warmup-ratio 0.1 --seed 0)

mteb-contrastive train "${COMMON[@]}" --temperature 0.01 --cached --mini-batch-size 32 --out "$OUT/contrastive"
mteb-contrastive train "${COMMON[@]}" --temperature 0.01 --cached --mini-batch-size 32 --no-rotation --out "$OUT/contrastive-no-rotation"
mteb-contrastive train-cross-encoder "${COMMON[@]}" --out "$OUT/cross-encoder"

for m in contrastive contrastive-no-rotation cross-encoder; do
  mteb run -m "$OUT/$m" -t PAN14KnownVerification ELTeCEngVerification --output-folder "$OUT/results/$m" --overwrite-strategy always
done
mteb-contrastive pan-report "$OUT/results"
