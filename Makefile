# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cksum requirements.txt | cut -d' ' -f1)

.PHONY: install system-deps run test test-fast lint fmt typecheck bench load drills clean

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

run: install
	$(PY) manage.py migrate --no-input
	$(PY) manage.py collectstatic --no-input --verbosity 0
	$(PY) manage.py load_demo
	$(PY) scripts/run.py

system-deps:
	scripts/system_deps.sh

test: install system-deps
	$(PY) -m pytest
	$(PY) scripts/with_postgres.py $(PY) -m pytest -m pg_django

test-fast: install
	$(PY) -m pytest -m "not slow and not postgres"

lint: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

fmt: install
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

typecheck: install
	$(PY) -m mypy --strict engine

bench: install
	$(PY) bench/engine.py
	$(PY) bench/tournament.py

load: install system-deps
	$(PY) bench/load.py

drills: install system-deps
	$(PY) bench/drills.py

clean:
	rm -rf $(VENV) var .pytest_cache .hypothesis
