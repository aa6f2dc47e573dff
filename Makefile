# `make demo` and `make test` work alone on a fresh machine: they create .venv when missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# BASE: the package, enough for the demo; STAMP: with the test tools and the optional Ray backend.
# The second install compiles nothing: each extension of the engine newer than its C is reused.
BASE := $(VENV)/.installed-base
STAMP := $(VENV)/.installed
# The engine's sources (chancespiel/engine.py lists them): installing compiles them where a C
# compiler is present, so a change to one reinstalls (recompiling the modules it touches).
ENGINE := $(shell sed -n 's/^    "\([a-z_/]*\.py\)": .*/\1/p' chancespiel/engine.py)

.PHONY: demo test test-slow lint typecheck format bench build wheel clean

$(BASE): pyproject.toml setup.py chancespiel/engine.py $(ENGINE)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(BASE)

$(STAMP): $(BASE)
	$(BIN)/python -m pip install --quiet -e '.[test,ray]'
	touch $(STAMP)

demo: $(BASE)
	$(BIN)/chancespiel demo
	@echo "The command is now .venv/bin/chancespiel (or: source .venv/bin/activate; chancespiel --help)"

# The tests run on every core (pytest-xdist): each is independent of the others' order.
test: $(STAMP) lint
	$(BIN)/chancespiel --version
	$(BIN)/python -m pytest -q -n auto

# Compiles the engine again after a change to its sources, only the modules the change touches
# (each module is its own extension, built in parallel); mypy first, so that a type error is
# shown here rather than turned into a pure Python install.
build: typecheck
	$(BIN)/python -m pip install --quiet -e .
	$(BIN)/chancespiel --version

# A wheel with the compiled engine inside, for machines of the same platform and Python that
# have no C compiler (installing it compiles nothing): dist/chancespiel-*.whl.
wheel: typecheck
	$(BIN)/python -m pip wheel --quiet --no-deps -w dist .
	$(BIN)/python -c "import json, sys, zipfile; from chancespiel import engine; \
	wheel = zipfile.ZipFile(sys.argv[1]); names = wheel.namelist(); \
	manifest = 'chancespiel/' + engine.MANIFEST; \
	built = json.loads(wheel.read(manifest))['sources'] if manifest in names else {}; \
	print(sys.argv[1] + (': compiled engine' if set(built) == set(engine.COMPILED) \
	else ': pure Python only (compiling failed: make build shows why)'))" \
	$$(ls -t dist/chancespiel-*.whl | head -1)

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -n auto -m slow

lint: $(STAMP) typecheck
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# mypy over the package as it is imported (chancespiel.games is games/, chancespiel.studies
# is lab/studies/, ...): a tree of links
# under build/ gives mypy the package layout that pyproject's package-dir maps. Part of lint.
typecheck: $(STAMP)
	rm -rf build/typecheck && mkdir -p build/typecheck/chancespiel
	for f in chancespiel/*.py; do ln -s ../../../$$f build/typecheck/chancespiel/; done
	for d in games agents evaluation; do ln -s ../../../$$d build/typecheck/chancespiel/$$d; done
	ln -s ../../../lab/studies build/typecheck/chancespiel/studies
	cd build/typecheck && ../../$(BIN)/mypy --ignore-missing-imports chancespiel

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# One summary of search speed per game, as ratios to OpenSpiel measured in the same run; the
# other lab/benchmarks/bench_*.py scripts measure one thing each in more detail.
bench: $(STAMP)
	$(BIN)/python lab/benchmarks/bench_summary.py

clean:
	rm -rf $(VENV) build dist *.egg-info chancespiel/engine_build.json
	find chancespiel games agents evaluation -name '*.so' -delete
