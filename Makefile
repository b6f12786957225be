# Two set-up commands on a fresh clone:  `make run` (the release evaluation)  and  `make test` (the suite).
# `make run` evaluates the bundled all-MiniLM-L6-v2 and BM25 on the default suite (one benchmark per
# family whose data is present) and ends with the report's path; `make run SUITE=full` runs everything here.
PY ?= python3
VENV := .venv
SUITE ?= default
MODELS ?= -m sentence-transformers/all-MiniLM-L6-v2 -m mteb/baseline-bm25s
# two mteb runs at once: BM25's short run overlaps MiniLM's start-up (imports, model loading)
JOBS ?= 2
# test processes (pytest-xdist; each test file in one process, its module fixtures built once)
TEST_JOBS ?= 2
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LINTED := src tasks tests scripts hatch_build.py

.PHONY: run test install clean

$(BIN)/python:
	$(PY) -m venv $(VENV)

# torch is pinned in the same pip command as everything that depends on it (a CPU wheel of
# exactly 2.13.0 is what this machine has; any other spec pulls a multi-GB CUDA build).
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q torch==2.13.0 -e '.[test,model,scale]'
	$(BIN)/mteb-contrastive seed-model
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/mteb-contrastive evaluate $(MODELS) --suite $(SUITE) --jobs $(JOBS) --out build/release

test: $(STAMP)
	$(BIN)/ruff check $(LINTED) && $(BIN)/ruff format --check -q $(LINTED)
	PATH=$(CURDIR)/$(BIN):$$PATH HF_HUB_OFFLINE=1 $(BIN)/python -m pytest -q -n $(TEST_JOBS) --dist loadfile

clean:
	rm -rf $(VENV) build
