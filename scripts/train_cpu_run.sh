#!/usr/bin/env bash
# The CPU-scale training run of docs/training.md ("A longer run on held-out TALN authors").
#
#   scripts/train_cpu_run.sh STAGE [RUN_DIR] [SHARED]
#
# STAGE: splits | train | benchmarks | evaluate | all. RUN_DIR (default build/train-cpu) holds every output;
# SHARED (default ../shared/data) the shared data. Environment (defaults = the documented run): SEED (0),
# MAX_STEPS (120), EVAL_STEPS (30), VAL_PAIRS (100), BATCH (16), CONTEXT (64), EVAL_CONTEXT (128), LR (5e-5),
# THREADS (2), SELECT (auc: the checkpoint kept; f1 cannot tell checkpoints apart on balanced pairs, see
# docs/training.md), MIN_DOCS (1: train --min-author-documents); RESUME=1 continues the train stage from its last checkpoint.
#
# splits      scripts/taln_training_splits.py: first authors split 25 % test / 15 % validation / rest train,
#             training papers naming a held-out author anywhere dropped, content overlap checked
# train       mteb-contrastive train on train.jsonl, validated on pairs of validation.jsonl (best SELECT kept)
# benchmarks  the product's builders on test.jsonl: verification pairs, author triplets, attribution
# evaluate    mteb-contrastive evaluate, base vs trained, on those benchmarks and PAN14Known (paired intervals)
set -euo pipefail
STAGE=${1:?usage: train_cpu_run.sh splits|train|benchmarks|evaluate|all [RUN_DIR] [SHARED]}
RUN=${2:-build/train-cpu}
SHARED=${3:-../shared/data}
SEED=${SEED:-0}
MAX_STEPS=${MAX_STEPS:-120}
EVAL_STEPS=${EVAL_STEPS:-30}
BATCH=${BATCH:-16}
CONTEXT=${CONTEXT:-64}
LR=${LR:-5e-5}
EVAL_CONTEXT=${EVAL_CONTEXT:-128}
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
    --max-steps "$MAX_STEPS" --eval-steps "$EVAL_STEPS" --logging-steps 10 --max-validation-pairs "${VAL_PAIRS:-100}" \
    --selection-metric "${SELECT:-auc}" --min-author-documents "${MIN_DOCS:-1}" --no-progress "${resume[@]}"
}

benchmarks() {
  # the product's builders on the held-out (test) authors' papers; chunks of the evaluation context in words
  nice -n 15 mteb-contrastive build-verification corpus "$S/test.jsonl" --name TALNHeldOut --out "$B/verification" \
    --chunk-words "$EVAL_CONTEXT" --pairs-per-author 8 --split-ratios 0 0.4 0.6 --languages fra-Latn
  nice -n 15 mteb-contrastive build-triplets "$S/test.jsonl" --name TALNHeldOut --out "$B/triplets" --k 4 \
    --language fr --topic-field topics
  nice -n 15 mteb-contrastive build-attribution "$S/test.jsonl" --name TALNHeldOut --language fra-Latn \
    --out "$B/attribution" --chunk-words "$EVAL_CONTEXT" --chunks-per-text 2
}

evaluate() {
  # base = the bundled MiniLM saved at the evaluation context; the trained model's copy is read at the same
  # context (it was trained at $CONTEXT tokens); of the shared data only PAN14Known (a folder holding only it)
  python scripts/train_cpu_models.py --base "$BASE" --trained "$MODEL" --out "$RUN/models/trained" \
    --context-length "$EVAL_CONTEXT"
  mkdir -p "$RUN/shared-pan/pan"
  ln -sf "$(cd "$SHARED" && pwd)/pan/pan14_known.jsonl.gz" "$RUN/shared-pan/pan/"
  MTEB_CONTRASTIVE_DATASETS="$B/triplets/TALNHeldOut:$B/attribution/TALNHeldOut" \
  MTEB_CONTRASTIVE_VERIFICATION="$B/verification/TALNHeldOut" \
    nice -n 10 mteb-contrastive evaluate -m "$BASE" -m "$RUN/models/trained" --out "$RUN/eval" \
    --shared "$RUN/shared-pan" --suite default
  python scripts/train_cpu_table.py "$RUN"
}

case "$STAGE" in
  splits) splits ;;
  train) train ;;
  benchmarks) benchmarks ;;
  evaluate) evaluate ;;
  all) splits; train; benchmarks; evaluate ;;
  *) echo "error: STAGE must be splits, train, benchmarks, evaluate or all, got '$STAGE'" >&2; exit 2 ;;
esac
