# subsearch: `make run` runs the whole service locally; `make test` runs every test
# on SQLite and again on PostgreSQL.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.DEFAULT_GOAL := help
.PHONY: help install run test test-sqlite test-postgresql browser lint format clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-16s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP) ## Create the virtual environment and install (with dev tools)

run: $(STAMP) ## Set up and run web + worker + scheduler on the embedded defaults
	@test -f .env || cp .env.sample .env
	$(BIN)/subsearch dev

test: test-sqlite test-postgresql ## Run every test on SQLite, then on PostgreSQL

browser: ## Install Debian's chromium for the browser tests when it is missing
	@test -x /usr/bin/chromium || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	  else echo "Browser tests need Debian's chromium: sudo apt-get install chromium"; exit 1; fi; }

test-sqlite: $(STAMP) browser ## Run every test on SQLite
	TEST_DATABASE=sqlite $(BIN)/pytest

test-postgresql: $(STAMP) browser ## Run every test on a throwaway PostgreSQL database
	TEST_DATABASE=postgresql $(BIN)/pytest

lint: $(STAMP) ## ruff: lint and format check; mypy: type check (strict on models/)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: $(STAMP) ## ruff: fix what can be fixed and format
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean: ## Remove the virtual environment and local data
	rm -rf $(VENV) var .pytest_cache .ruff_cache
