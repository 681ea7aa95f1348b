# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt | cksum | cut -d' ' -f1)
DEV_STAMP := $(VENV)/.installed-dev-$(shell cat requirements.txt requirements-dev.txt | cksum | cut -d' ' -f1)

.PHONY: install install-dev native system-deps run venue test test-fast test-long lint fmt typecheck messages screenshots bench load drills clean

# The runtime set only (make run); the tests and tools on top of it (make test).
$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	rm -f $(VENV)/.installed-[0-9]*
	touch $(STAMP)

$(DEV_STAMP): $(STAMP) requirements-dev.txt
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	rm -f $(VENV)/.installed-dev-*
	touch $(DEV_STAMP)

install: $(STAMP)

install-dev: $(DEV_STAMP)

# The engine's hot modules compiled with mypyc (engine/native.py); quick when this source is built already,
# and where it cannot be built (no C compiler) the pure build runs with the same results.
native: install
	$(PY) -m engine native --build --optional

run: install native
	scripts/system_deps.sh --run
	$(PY) manage.py migrate --no-input
	STATIC_MANIFEST=1 $(PY) manage.py collectstatic --no-input --verbosity 0
	$(PY) manage.py load_demo
	STATIC_MANIFEST=1 $(PY) scripts/run.py

# The same system for the hall: every interface, LAN URLs with QR codes, a backup every 10 minutes. No demo
# accounts: the first run asks for the organizer's own account (manage.py createorganizer), and the server
# refuses to start while any account has the demo password (manage.py venue_check --lock-demo removes it).
venue: install native
	scripts/system_deps.sh --run
	$(PY) manage.py migrate --no-input
	STATIC_MANIFEST=1 $(PY) manage.py collectstatic --no-input --verbosity 0
	@$(PY) manage.py createorganizer --if-none || echo "First run: create the organizer's account with  $(PY) manage.py createorganizer"
	STATIC_MANIFEST=1 $(PY) scripts/run.py --venue

system-deps:
	scripts/system_deps.sh

test: install-dev system-deps native
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy
	$(PY) scripts/split_tests.py
	$(PY) scripts/with_postgres.py $(PY) -m pytest -m pg_django

test-fast: install-dev
	$(PY) scripts/split_tests.py -m "not slow and not postgres"

test-long: install-dev
	CORRECTION_EXAMPLES=300 HYPOTHESIS_RANDOM=1 $(PY) -m pytest -m slow -k random_results -p no:cacheprovider
	SIMULATION_COUNTS=all $(PY) -m pytest -m slow -k hash_seed -p no:cacheprovider

lint: install-dev
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

fmt: install-dev
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

typecheck: install-dev
	$(PY) -m mypy

# Every language's catalogue updated from the source, Traditional Chinese made from Simplified Chinese, all
# compiled; lists what is left to translate (the catalogue tests fail until it is).
messages: install-dev
	$(PY) scripts/messages.py

# The README's pictures, taken by the browser test of every page (docs/images/).
screenshots: install-dev system-deps native
	$(PY) scripts/screenshots.py

bench: install-dev
	$(PY) bench/engine.py
	$(PY) bench/tournament.py

load: install-dev system-deps
	$(PY) bench/load.py

drills: install-dev system-deps
	$(PY) bench/drills.py

clean:
	rm -rf $(VENV) var .pytest_cache .hypothesis
