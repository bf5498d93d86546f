# Two entry points that do all set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.runtime: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
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
