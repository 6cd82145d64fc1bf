# The two commands a newcomer needs: `make demo` and `make test`. Both set themselves up.
# The Python the venv is made from: the system's python3 where there is one that makes venvs,
# else the first python3 on PATH. Debian's is built with profile-guided and link-time
# optimisation and plays games 22-35% faster than a plain source build such as pyenv's
# (bench/play.py prints which one ran). Any CPython 3.11 or newer works: `make PY=...`.
PY ?= $(firstword $(shell for p in /usr/bin/python3 python3; do \
  "$$p" -c 'import sys, ensurepip, venv; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1 && echo "$$p"; done) python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
GAMES := android study-in-emerald arkham-horror night-city

.PHONY: demo test setup system postgres browser build check-build sheets bench clean vscode serve lsp balance balance-arkham balance-figures

# The venv with what `make demo` runs (validate, build, simulate): the package and its own
# dependencies. Each extra (lsp, table, balance, ray, test) is added by the target that needs it,
# once, stamped: `make test` takes them all.
$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	@# (setuptools' notice of every editable install of a package whose folders are mapped, as
	@# compiler/ and runtime/ are into rulepress: a note for its own authors, no warning of ours)
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/pip install --quiet -e .
	@# bytecode made once here: where PYTHONDONTWRITEBYTECODE is set, every command would compile it again
	$(BIN)/python -m compileall -q rulepress compiler runtime >/dev/null
	@$(MAKE) --no-print-directory system
	rm -f $(VENV)/.extra-*
	touch $(STAMP)

$(VENV)/.extra-%: $(STAMP)
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/pip install --quiet -e '.[$*]'
	touch $@

# The test extra also makes the test modules as pytest rewrites them, once, as the package's
# bytecode is made above (else every worker of the first run makes them: half its collection).
$(VENV)/.extra-test: $(STAMP)
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/pip install --quiet -e '.[test]'
	-PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest --collect-only -q -p no:cacheprovider >/dev/null 2>&1
	touch $@

# PDFs need Pango (WeasyPrint) and fonts; the PDF tests need pdftoppm; the rulebooks' map and
# round pictures need Graphviz's dot. Installed only when missing.
SYSTEM_PACKAGES := libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-dejavu-core poppler-utils graphviz
system:
	@if ! $(BIN)/python -c "import weasyprint" >/dev/null 2>&1 || ! command -v pdftoppm >/dev/null 2>&1 || ! command -v dot >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update && apt-get install -y $(SYSTEM_PACKAGES); \
	  else \
	    echo "PDF printing needs: $(SYSTEM_PACKAGES) (run as root: apt-get install -y ...)" >&2; exit 1; \
	  fi; \
	fi
	@$(MAKE) --no-print-directory postgres

# The table's tests of several server processes start a PostgreSQL cluster of their own in a
# temporary folder (initdb, pg_ctl: Debian keeps them in /usr/lib/postgresql/*/bin). Installed
# only when missing (and only where apt-get may run); without it, those tests are skipped.
postgres:
	@if ! { command -v pg_ctl || ls /usr/lib/postgresql/*/bin/pg_ctl; } >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get install -y postgresql || (apt-get update && apt-get install -y postgresql) || \
	      echo "no PostgreSQL: the tests of several table servers are skipped" >&2; \
	  else \
	    echo "no PostgreSQL: the tests of several table servers are skipped (run as root: apt-get install -y postgresql)" >&2; \
	  fi; \
	fi

# The browser tests drive the system's chromium headless: the coverage report's HTML, and the
# online table through Playwright (tests/test_table_browser.py; Playwright never downloads a
# browser of its own here). Installed only when missing (and only where apt-get may run);
# without it, those tests are skipped.
browser:
	@if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get install -y chromium || (apt-get update && apt-get install -y chromium) || \
	      echo "no chromium: the browser tests (coverage HTML, online table) are skipped" >&2; \
	  else \
	    echo "no chromium: the browser tests (coverage HTML, online table) are skipped" >&2; \
	  fi; \
	fi

# The VS Code extension (editors/vscode): `npm install` and a packaging check, once, stamped.
# Node and npm are installed when missing (as root with apt-get). `make setup` builds it when
# it can and says why not when it cannot (the Python toolchain does not need it);
# `make vscode` insists.
VSCODE := editors/vscode
VSCODE_STAMP := $(VSCODE)/.built
VSCODE_STRICT ?= 0
$(VSCODE_STAMP): $(VSCODE)/package.json $(VSCODE)/extension.js
	@if ! command -v npm >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  apt-get update && apt-get install -y nodejs npm; \
	fi
	@if command -v npm >/dev/null 2>&1 && (cd $(VSCODE) && npm install --no-audit --no-fund --loglevel=error && npm run --silent check); then \
	  touch $(VSCODE_STAMP); \
	elif [ "$(VSCODE_STRICT)" = 1 ]; then \
	  echo "the VS Code extension needs node and npm (apt-get install -y nodejs npm) and the npm registry" >&2; exit 1; \
	else \
	  echo "note: VS Code extension not built (needs node, npm and the npm registry; \`make vscode\` retries)" >&2; \
	fi

vscode:
	@rm -f $(VSCODE_STAMP)
	@$(MAKE) --no-print-directory VSCODE_STRICT=1 $(VSCODE_STAMP)

setup: $(VENV)/.extra-test $(VSCODE_STAMP)

demo: $(STAMP)
	$(BIN)/rulepress validate content
	$(BIN)/rulepress build content -o build
	@for g in $(GAMES); do \
	  if [ -f content/$$g/game.yaml ] && grep -q '^flow:' -r content/$$g/*.yaml 2>/dev/null; then \
	    echo "== one simulated game of $$g"; $(BIN)/rulepress simulate $$g -n 1 --seed 1 || exit 1; \
	  fi; \
	done

# pytest-xdist plays the suite with one worker more than the cores, a test or a group of tests
# at a time, the longest first (tests/conftest.py): a worker waiting on a browser, a server or
# Ray's start leaves its core to the extra one (bench/suite.md). PYTEST_ARGS adds to it (e.g.
# -n 0, -k lsp). The test modules as pytest rewrites them are kept (tests/__pycache__, even where
# PYTHONDONTWRITEBYTECODE is set): rewritten again in every worker on every run, they were half
# of a worker's 5 s of collection. The content's own checks (validate, its scenarios, the
# examples') run beside the suite, in the time its workers wait on browsers and servers, and
# say what they found once it has finished.
PYTEST_ARGS ?=
TEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
test: $(VENV)/.extra-test $(VSCODE_STAMP) browser postgres
	@out=$$(mktemp); \
	{ $(BIN)/rulepress validate content --error W017 && $(BIN)/rulepress test content && \
	  $(BIN)/rulepress test docs/examples; } >"$$out" 2>&1 & checks=$$!; \
	echo "$(BIN)/python -m pytest -q -n $(TEST_WORKERS) $(PYTEST_ARGS)"; \
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -n $(TEST_WORKERS) $(PYTEST_ARGS); suite=$$?; \
	wait $$checks; content=$$?; \
	echo "== rulepress validate content --error W017; rulepress test content; rulepress test docs/examples"; \
	cat "$$out"; rm -f "$$out"; \
	[ $$suite = 0 ] && [ $$content = 0 ]
	@# (the leak check, `rulepress secrets GAME -n 1` at each player count, is in pytest:
	@# tests/test_secrets.py, one test per game and count, spread over the cores; every
	@# decision at three players, a sample at the other counts: bench/suite.md)

build: $(STAMP)
	$(BIN)/rulepress build content -o build

# the printed rulebooks and card sheets of the content games and the examples, in both languages,
# into build/<game>/sheets/: the rulebook PDFs, the duplex sheets, the components and the contact
# sheet (PDF, and PNG pages to look at);
# <game>.sheets.json says which content they were made from (tests/test_print.py checks it)
SHEET_GAMES := $(addprefix content/,$(GAMES)) docs/examples/love-letter docs/examples/coup
sheets: $(STAMP)
	@for g in $(SHEET_GAMES); do \
	  n=$$(basename $$g); rm -rf build/$$n/sheets; \
	  $(BIN)/rulepress print $$g --lang en --lang ru --contact -o build/$$n/sheets >/dev/null || exit 1; \
	done

# the online table on Night City: open http://127.0.0.1:8000/ (docs/table.md)
serve: $(VENV)/.extra-table
	$(BIN)/rulepress serve night-city

# the language server and the balance lab with what they need: `make lsp` (then point the editor
# at .venv/bin/rulepress lsp), `make balance GAME=night-city`
GAME ?= night-city
lsp: $(VENV)/.extra-lsp
	@echo "the language server: $(BIN)/rulepress lsp (docs/design.md, editors/vscode)"
balance: $(VENV)/.extra-balance
	$(BIN)/rulepress balance $(GAME)

# Arkham Horror's figures in its COVERAGE.md ("How it plays"): search bots at 1, 2 and 4
# players, seed fixed; the win rate with its interval (bench/out/balance-arkham-<n>.html), then how the
# same games ended. Slow (about an hour on two cores): optional, not part of `make test`.
ARKHAM_RUNS := 1:24:mcts:20 2:12:mcts:10 4:8:mcts:10
balance-arkham: $(VENV)/.extra-balance
	@mkdir -p bench/out; for r in $(ARKHAM_RUNS); do \
	  n=$${r%%:*}; rest=$${r#*:}; games=$${rest%%:*}; agent=$${rest#*:}; \
	  nice $(BIN)/rulepress balance content/arkham-horror -n $$games --seed 1 --players $$n --agent $$agent --no-coverage -o bench/out/balance-arkham-$$n.html || exit 1; \
	  nice $(BIN)/python bench/arkham_paths.py -n $$games --seed 1 --players $$n --agent $$agent 2>/dev/null || exit 1; \
	done

# the figures of the "How it plays" sections of content/*/COVERAGE.md, each with the command
# that section quotes (slow: search bots take about an hour on two cores; not in `make test`)
balance-figures: $(VENV)/.extra-balance
	$(BIN)/rulepress balance content/night-city -n 60 --players 2 --players 4 --agent greedy --seed 7 --no-coverage
	$(BIN)/rulepress balance content/night-city -n 200 --players 2 --agent mcts:10:depth1 --seed 7 --no-coverage
	$(BIN)/rulepress balance content/night-city -n 200 --players 4 --agent mcts:10:depth1 --seed 7 --no-coverage
	$(BIN)/rulepress balance content/study-in-emerald -n 30 --players 2 --players 4 --agent greedy --seed 1 --no-coverage
	$(BIN)/rulepress balance content/study-in-emerald -n 6 --players 4 --agent mcts:10 --seed 1 --no-coverage
	$(BIN)/rulepress balance content/android -n 60 --players 2 --agent mcts:10 --seed 1 --no-coverage
	$(BIN)/python bench/android_figures.py -n 60 --players 2 --agent mcts:10 --seed 1
	$(BIN)/rulepress balance content/android -n 40 --players 4 --agent mcts:10 --seed 1 --no-coverage
	$(BIN)/python bench/android_figures.py -n 40 --players 4 --agent mcts:10 --seed 1

bench: $(VENV)/.extra-bench $(VENV)/.extra-test
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache dist *.egg-info $(VSCODE)/node_modules $(VSCODE_STAMP)
	find . -name __pycache__ -type d -prune -not -path './.venv/*' -exec rm -rf {} +
