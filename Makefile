# Two commands: `make run` serves the app on http://localhost:8501, `make test` runs every test.
# Each builds .venv from the pinned requirements when it is missing or older than them.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test

REPLICAS ?= 2
DB ?= sqlite
N ?= 2
PORT ?= 8501

.PHONY: run test lint format test-load test-repro bench bench-quick serve stop clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

$(TEST_STAMP): requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@ $(RUN_STAMP)

run: $(RUN_STAMP)
	$(BIN)/python -m ui.launch --server.port 8501

test: lint  # two workers, a test file each at a time, the slowest first (tests/conftest.py; `make test N=1`: one process)
	$(BIN)/python -m pytest -m "not load and not repro" -n $(N) --dist loadfile --no-loadscope-reorder

lint: $(TEST_STAMP)  # ruff.toml: lint rules and the 120-character lines; `make format` fixes what it can
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(TEST_STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

test-load: $(TEST_STAMP)  # a class at once: Chromium sessions on one server, the queue jammed, two replicas behind nginx (minutes; `.ci/run` runs it too)
	$(BIN)/python -m pytest -m load

test-repro: $(TEST_STAMP)  # retrain every shipped result whole and compare (hours; `make test` reruns slices)
	$(BIN)/python -m pytest -m repro -p no:timeout

bench: $(TEST_STAMP)
	$(BIN)/python -m bench

bench-quick: $(TEST_STAMP)  # every benchmark once at its smallest (`make test` runs it: tests/test_bench_quick.py)
	$(BIN)/python -m bench --quick

serve: $(RUN_STAMP)  # a class: REPLICAS app processes behind nginx on PORT (Debian's nginx); DB=postgres: a local PostgreSQL
	$(BIN)/python -m deploy.serve start --replicas $(REPLICAS) --port $(PORT) --db $(DB)

stop:
	$(BIN)/python -m deploy.serve stop

clean:
	rm -rf $(VENV) .cache .pytest_cache
