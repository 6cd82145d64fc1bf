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

.PHONY: demo test setup system build check-build bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	@# bytecode made once here: where PYTHONDONTWRITEBYTECODE is set, every command would compile it again
	$(BIN)/python -m compileall -q rulepress compiler runtime >/dev/null
	@$(MAKE) --no-print-directory system
	touch $(STAMP)

# PDFs need Pango (WeasyPrint) and fonts; the PDF tests need pdftoppm. Installed only when missing.
SYSTEM_PACKAGES := libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-dejavu-core poppler-utils
system:
	@if ! $(BIN)/python -c "import weasyprint" >/dev/null 2>&1 || ! command -v pdftoppm >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update && apt-get install -y $(SYSTEM_PACKAGES); \
	  else \
	    echo "PDF printing needs: $(SYSTEM_PACKAGES) (run as root: apt-get install -y ...)" >&2; exit 1; \
	  fi; \
	fi

# The schema checks as code, made here rather than in every command (compiler/schemacode.py),
# and again when a schema changes.
SCHEMA_CODE := compiler/_schemas/__init__.py
$(SCHEMA_CODE): $(STAMP) $(wildcard schemas/*.json) compiler/schemacode.py
	$(BIN)/python -m rulepress.compiler.schemacode
	$(BIN)/python -m compileall -q compiler/_schemas >/dev/null

# The built-in rulebook templates compiled, in a folder named after the toolchain (compiler/buildcache.py).
TEMPLATE_CODE := compiler/_templates/.made
$(TEMPLATE_CODE): $(STAMP) $(SCHEMA_CODE) $(wildcard compiler/*.py compiler/templates/* runtime/*.py schemas/*.json)
	$(BIN)/python -m rulepress.compiler.buildcache
	touch $(TEMPLATE_CODE)

setup: $(STAMP) $(SCHEMA_CODE) $(TEMPLATE_CODE)

demo: $(STAMP) $(SCHEMA_CODE) $(TEMPLATE_CODE)
	$(BIN)/rulepress validate content
	$(BIN)/rulepress build content -o build
	@for g in $(GAMES); do \
	  if [ -f content/$$g/game.yaml ] && grep -q '^flow:' -r content/$$g/*.yaml 2>/dev/null; then \
	    echo "== one simulated game of $$g"; $(BIN)/rulepress simulate $$g -n 1 --seed 1 || exit 1; \
	  fi; \
	done

test: $(STAMP) $(SCHEMA_CODE) $(TEMPLATE_CODE)
	$(BIN)/rulepress validate content
	$(BIN)/python -m pytest -q
	$(BIN)/rulepress test content
	@# the leak check, one random game at each player count (the leak-bait games are in pytest)
	@for g in $(GAMES); do \
	  if [ -f content/$$g/game.yaml ]; then $(BIN)/rulepress secrets $$g -n 1 || exit 1; fi; \
	done

build: $(STAMP) $(SCHEMA_CODE) $(TEMPLATE_CODE)
	$(BIN)/rulepress build content -o build

bench: $(STAMP) $(SCHEMA_CODE) $(TEMPLATE_CODE)
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache compiler/_schemas compiler/_templates
