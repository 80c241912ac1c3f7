# Two entry points for people and CI: `make demo` and `make test`.
# Each creates the virtual environment in .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test lint venv clean

$(STAMP): pyproject.toml
	$(PY) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "bellum needs Python 3.11 or newer")'
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	@mkdir -p build
	@echo '$$ printf "150\n0\n" | bellum empire attack 2,0 --world examples/empire/vector-a.toml --as 1 --seed 1 --out build/vector-a-after.toml'
	@printf '150\n0\n' | $(BIN)/bellum empire attack 2,0 --world examples/empire/vector-a.toml --as 1 --seed 1 --out build/vector-a-after.toml
	@echo
	@echo '$$ bellum empire show --world build/vector-a-after.toml --as 1 0,0 2,0'
	@$(BIN)/bellum empire show --world build/vector-a-after.toml --as 1 0,0 2,0
	@echo
	@echo 'To type `bellum` in this shell: export PATH="$$PWD/$(BIN):$$PATH"   (or: source $(BIN)/activate)'

lint: $(STAMP)
	$(BIN)/ruff check src tests tools conftest.py $(wildcard benchmarks)
	$(BIN)/ruff format --check src tests tools conftest.py $(wildcard benchmarks)
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) build
