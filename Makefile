# Two entry points that do all set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# torch first, pinned: this machine's package index serves a CPU build of 2.13.0,
# and anything that later asks for torch is then satisfied without CUDA wheels.
$(VENV)/.torch: | $(BIN)/python
	$(BIN)/python -m pip install --quiet torch==2.13.0
	touch $@

$(VENV)/.runtime: pyproject.toml $(VENV)/.torch
	$(BIN)/python -m pip install --quiet -e '.[semantic]'
	touch $@

$(VENV)/.dev: pyproject.toml $(VENV)/.torch
	$(BIN)/python -m pip install --quiet -e '.[semantic,dev]'
	touch $@ $(VENV)/.runtime

demo: $(VENV)/.runtime
	$(BIN)/confnav demo

test: $(VENV)/.dev
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/pytest -q

bench: $(VENV)/.dev
	$(BIN)/python benchmarks/ingest.py

clean:
	rm -rf $(VENV) build *.egg-info
