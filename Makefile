# `make demo` and `make test` work alone on a fresh machine: they create .venv when missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow lint format bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,ray]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/chancespiel demo

test: $(STAMP) lint
	$(BIN)/python -m pytest -q

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# One summary of search speed per game, as ratios to OpenSpiel measured in the same run; the
# other benchmarks/bench_*.py scripts measure one thing each in more detail.
bench: $(STAMP)
	$(BIN)/python benchmarks/bench_summary.py

clean:
	rm -rf $(VENV) build *.egg-info
