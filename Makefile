# subsearch: `make run` runs the whole service locally; `make test` runs every test
# on SQLite and again on PostgreSQL.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.DEFAULT_GOAL := help
.PHONY: help install run test test-sqlite test-postgresql browser lint format clean translations messages screenshots

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-16s %s\n", $$1, $$2}'

# torch, for the `embeddings` extra, goes in first and on its own: the CPU build (about
# 750 MB; a CUDA build is several GB). This project's machines hold its wheel, which pip
# finds there; elsewhere point pip at PyTorch's CPU wheel index for it:
# make install TORCH_OPTIONS='--index-url <that index>'.
TORCH_OPTIONS ?=

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet 'torch==2.13.0' $(TORCH_OPTIONS)
	$(BIN)/pip install --quiet -e '.[dev,embeddings]'
	touch $(STAMP)

install: $(STAMP) translations ## Create the virtual environment and install (with dev tools)

CATALOGS := $(wildcard web/translations/*/LC_MESSAGES/messages.po)

translations: $(STAMP) $(CATALOGS:.po=.mo) ## Compile the gettext catalogs (web/translations)

%.mo: %.po
	$(BIN)/pybabel compile --statistics -i $< -o $@

messages: $(STAMP) ## Extract the pages' sentences and merge them into the catalogs
	$(BIN)/pybabel extract -F babel.cfg -k lazy_gettext -o web/translations/messages.pot --no-location --sort-output --project subsearch .
	$(BIN)/pybabel update -i web/translations/messages.pot -d web/translations --no-fuzzy-matching --ignore-obsolete

run: $(STAMP) translations ## Set up and run web + worker + scheduler on the embedded defaults
	@test -f .env || cp .env.sample .env
	$(BIN)/subsearch dev

test: test-sqlite test-postgresql ## Run every test on SQLite, then on PostgreSQL

browser: ## Install Debian's chromium and Japanese fonts for the browser tests when missing
	@{ test -x /usr/bin/chromium && test -d /usr/share/fonts/opentype/noto; } || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk; \
	  else echo "Browser tests need Debian's chromium and fonts-noto-cjk: sudo apt-get install chromium fonts-noto-cjk"; exit 1; fi; }

# Each pass spreads its tests over worker processes (pytest-xdist; 0 runs them in this
# one) and ends with its 25 slowest. Each takes more workers than cores: the flow tests
# (two chains, one test after another within each: tests/conftest.py) and the browser
# tests wait on other processes much of the time. The SQLite pass takes twice the cores,
# at most 8: each worker has a Redis database of its own (tests/fixtures.py, 15 down).
# The PostgreSQL pass takes a worker a core and one more, at most 3: four met "too many
# clients" (max_connections, 100 by default), a flow test holding twenty connections.
# TESTS picks a part: make test-sqlite TESTS=tests/web/api, or TESTS='tests/models -k credits'.
CORES := $(shell nproc 2>/dev/null || echo 2)
TEST_WORKERS ?= $(shell n=$$(( $(CORES) * 2 )); echo $$(( n < 8 ? n : 8 )))
TEST_WORKERS_POSTGRESQL ?= $(shell n=$$(( $(CORES) + 1 )); echo $$(( n < 3 ? n : 3 )))
TESTS ?=
PYTEST := $(BIN)/pytest --dist loadgroup --durations=25

test-sqlite: $(STAMP) translations browser ## Run every test on SQLite
	TEST_DATABASE=sqlite $(PYTEST) -n $(TEST_WORKERS) $(TESTS)

test-postgresql: $(STAMP) translations browser ## Run every test but the database-independent ones on a throwaway PostgreSQL database
	TEST_DATABASE=postgresql $(PYTEST) -n $(TEST_WORKERS_POSTGRESQL) $(TESTS)

screenshots: $(STAMP) translations browser ## Take the README's screenshots again (docs/screenshots)
	DOCS_SCREENSHOTS=docs/screenshots TEST_DATABASE=sqlite $(BIN)/pytest -q tests/browser/test_first_run.py

lint: $(STAMP) ## ruff: lint and format check; mypy: strict type check of every package; lint-imports: the layers
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

format: $(STAMP) ## ruff: fix what can be fixed and format
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean: ## Remove the virtual environment and local data
	rm -rf $(VENV) var .pytest_cache .ruff_cache
