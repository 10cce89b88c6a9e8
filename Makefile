# The two commands: `make dev` and `make test`. Both install what they need.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
SAMVENV := .venv-sam
PORT ?= 8000
HOST ?= 127.0.0.1
export AWS_DEFAULT_REGION ?= us-east-1

.PHONY: dev test install install-sam lint unit functions e2e browser browser-deps sam-check bench lock clean

# The venvs install the lock files (every package pinned exactly); `make lock` regenerates
# them from requirements-dev.txt / requirements-sam.txt (the direct dependencies).
$(BIN)/.installed: requirements.lock
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q -r requirements.lock
	@touch $@

$(SAMVENV)/.installed: requirements-sam.lock
	@test -x $(SAMVENV)/bin/python || $(PY) -m venv $(SAMVENV)
	$(SAMVENV)/bin/python -m pip install -q -r requirements-sam.lock
	@touch $@

# Upgrade every pin: resolve the direct dependencies afresh in throw-away venvs and freeze them.
lock:
	scripts/lock.sh requirements-dev.txt requirements.lock
	scripts/lock.sh requirements-sam.txt requirements-sam.lock

install: $(BIN)/.installed
install-sam: $(SAMVENV)/.installed

dev: $(BIN)/.installed
	$(BIN)/python -m local --host $(HOST) --port $(PORT)

lint: $(BIN)/.installed
	$(BIN)/ruff check .

unit: $(BIN)/.installed
	$(BIN)/python -m pytest tests/unit

functions: $(BIN)/.installed
	$(BIN)/python -m pytest tests/functions

e2e: $(BIN)/.installed
	$(BIN)/python -m pytest tests/e2e

# Chromium and the screenshot fonts (Korean, emoji): apt-get when root, else the command to run.
browser-deps:
	scripts/ensure-browser.sh

browser: $(BIN)/.installed browser-deps
	$(BIN)/python -m pytest tests/browser

sam-check: $(BIN)/.installed $(SAMVENV)/.installed
	$(SAMVENV)/bin/sam validate --lint --template template.yaml
	$(BIN)/cfn-lint template.yaml
	$(SAMVENV)/bin/sam build --template template.yaml --build-dir .aws-sam/build >/dev/null
	@echo "sam build: ok"

# Each tier in its own process: Playwright's sync API keeps an event loop running on the
# main thread, which would break the asyncio-based e2e tests if they shared a process.
test: lint sam-check browser-deps
	$(BIN)/python -m pytest tests/unit tests/functions
	$(BIN)/python -m pytest tests/e2e
	$(BIN)/python -m pytest tests/browser

bench: $(BIN)/.installed
	@for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b; done

clean:
	rm -rf .aws-sam .pytest_cache .ruff_cache
