#!/usr/bin/env bash
# The CPU-scale training run of docs/training.md ("A longer run on held-out TALN authors").
#
#   scripts/train_cpu_run.sh STAGE [RUN_DIR] [SHARED]
#
# STAGE: splits | train | benchmarks | evaluate | all. RUN_DIR (default build/train-cpu) holds every output;
# SHARED (default ../shared/data) the shared data. Environment: SEED (0), MAX_STEPS (600), EVAL_STEPS (100), VAL_PAIRS (160),
# BATCH (32), CONTEXT (128), LR (5e-5), THREADS (2); RESUME=1 continues the train stage from its last checkpoint.
#
# splits      scripts/taln_training_splits.py: first authors split 25 % test / 15 % validation / rest train,
#             training papers naming a held-out author anywhere dropped, content overlap checked
# train       mteb-contrastive train on train.jsonl, validated on pairs of validation.jsonl (best F1 kept)
# benchmarks  the product's builders on test.jsonl: verification pairs, author triplets, attribution
# evaluate    mteb-contrastive evaluate, base vs trained, on those benchmarks and PAN14Known (paired intervals)
set -euo pipefail
STAGE=${1:?usage: train_cpu_run.sh splits|train|benchmarks|evaluate|all [RUN_DIR] [SHARED]}
RUN=${2:-build/train-cpu}
SHARED=${3:-../shared/data}
SEED=${SEED:-0}
MAX_STEPS=${MAX_STEPS:-600}
EVAL_STEPS=${EVAL_STEPS:-100}
BATCH=${BATCH:-32}
CONTEXT=${CONTEXT:-128}
LR=${LR:-5e-5}
export OMP_NUM_THREADS=${THREADS:-2} MKL_NUM_THREADS=${THREADS:-2} HF_HUB_OFFLINE=1
S=$RUN/splits
MODEL=$RUN/models/contrastive-s$SEED
BASE=$RUN/models/base
B=$RUN/benchmarks
mkdir -p "$RUN"

splits() {
  python scripts/taln_training_splits.py --shared "$SHARED" --out "$S" --seed "$SEED"
}

train() {
  local resume=()
  [[ "${RESUME:-0}" == 1 ]] && resume=(--resume)
  nice -n 5 mteb-contrastive train --docs "corpus=$S/train.jsonl" --validation-docs "corpus=$S/validation.jsonl" \
    --out "$MODEL" --context-length "$CONTEXT" --batch-size "$BATCH" --learning-rate "$LR" --seed "$SEED" \
    --max-steps "$MAX_STEPS" --eval-steps "$EVAL_STEPS" --logging-steps 10 --max-validation-pairs "${VAL_PAIRS:-160}" \
    --no-progress "${resume[@]}"
}

benchmarks() {
  nice -n 5 mteb-contrastive build-verification corpus "$S/test.jsonl" --name TALNHeldOut --out "$B/verification" \
    --chunk-words "$CONTEXT" --pairs-per-author 4 --split-ratios 0 0.4 0.6
  nice -n 5 mteb-contrastive build-triplets "$S/test.jsonl" --name TALNHeldOut --out "$B/triplets"
  nice -n 5 mteb-contrastive build-attribution "$S/test.jsonl" --name TALNHeldOut --language fra --out "$B/attribution"
}

evaluate() {
  python - "$BASE" "$CONTEXT" <<'EOF'
import sys
from sentence_transformers import SentenceTransformer
from mteb_contrastive.config import bundled_minilm
m = SentenceTransformer(bundled_minilm(), device="cpu")
m.max_seq_length = int(sys.argv[2])
m.save(sys.argv[1])
EOF
  nice -n 5 mteb-contrastive evaluate -m "$BASE" -m "$MODEL" --out "$RUN/eval" --suite default
}

case "$STAGE" in
  splits) splits ;;
  train) train ;;
  benchmarks) benchmarks ;;
  evaluate) evaluate ;;
  all) splits; train; benchmarks; evaluate ;;
  *) echo "error: STAGE must be splits, train, benchmarks, evaluate or all, got '$STAGE'" >&2; exit 2 ;;
esac
