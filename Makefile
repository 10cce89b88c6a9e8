# The two commands: `make dev` and `make test`. Both install what they need.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
SAMVENV := .venv-sam
PORT ?= 8000
HOST ?= 127.0.0.1
export AWS_DEFAULT_REGION ?= us-east-1

.PHONY: dev test install install-sam lint unit functions e2e browser browser-deps sam-check build bench lock clean

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

# Upgrade every pin: resolve the direct dependencies afresh in throw-away venvs and freeze them;
# then pin the Lambda artifacts' requirements (functions/, layers/engine/) from the new lock, so
# `sam build` ships what the tests ran (scripts/lambda_requirements.py).
lock:
	scripts/lock.sh requirements-dev.txt requirements.lock
	scripts/lock.sh requirements-sam.txt requirements-sam.lock
	scripts/lock.sh requirements-checkov.txt requirements-checkov.lock
	$(MAKE) install
	$(BIN)/python scripts/lambda_requirements.py

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
# axe-core (the accessibility checks) from npm, pinned in tests/browser/package-lock.json.
AXE := tests/browser/node_modules/axe-core/axe.min.js
browser-deps: $(AXE)
	scripts/ensure-browser.sh

$(AXE): tests/browser/package.json tests/browser/package-lock.json
	@command -v npm >/dev/null || { echo "the browser tests need npm (apt-get install -y npm)" >&2; exit 1; }
	cd tests/browser && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

browser: $(BIN)/.installed browser-deps
	$(BIN)/python -m pytest tests/browser

sam-check: build
	$(SAMVENV)/bin/sam validate --lint --template template.yaml
	$(BIN)/cfn-lint template.yaml

# The deployable artifacts (what `sam deploy` uploads), built and checked; `make test` too.
build: $(BIN)/.installed $(SAMVENV)/.installed
	$(SAMVENV)/bin/sam build --template template.yaml --build-dir .aws-sam/build >/dev/null
	$(BIN)/python scripts/check_build.py .aws-sam/build

# ---- Lambda artifacts. `sam build` runs `make build-<LogicalId>` with this file (template.yaml:
# BuildMethod makefile, ContextPath .) in a scratch copy of the resource's code, ARTIFACTS_DIR
# set. As SAM's python3.11 builder does: the dependencies for arm64 and our code; plus a step
# it lacks: everything compiled to bytecode (unchecked-hash .pyc, valid whatever the files'
# dates), each naming the path it has on Lambda (/var/task, /opt/python: the same bytes
# whatever folder builds it). /var/task and /opt are read-only, so without it every cold start
# compiles our modules again (docs/operations.md, "Cold starts").
REPO := $(dir $(abspath $(firstword $(MAKEFILE_LIST))))
LAMBDA_PY := $(REPO)$(BIN)/python
# bytecode for the python3.11 runtime needs a Python 3.11 (any: bytecode.py is stdlib only);
# without one the artifacts ship as source (correct, slower to start; check_build says so)
BYTECODE_PY := $(or $(shell command -v python3.11 2>/dev/null),$(LAMBDA_PY))
# --no-deps: requirements.txt pins every package already (`make lock`); nothing else may come in
LAMBDA_PIP := $(LAMBDA_PY) -m pip install --quiet --no-compile --disable-pip-version-check --no-deps \
	--platform manylinux2014_aarch64 --implementation cp --python-version 3.11 --only-binary=:all:
LAMBDA_FUNCTIONS := RestFunction WsConnectFunction WsDisconnectFunction WsDefaultFunction WsReportFunction TimerFunction

$(addprefix build-,$(LAMBDA_FUNCTIONS)):
	@$(LAMBDA_PIP) --requirement requirements.txt --target "$(ARTIFACTS_DIR)"
	@cp -R handlers service "$(ARTIFACTS_DIR)/"
	@$(BYTECODE_PY) $(REPO)scripts/bytecode.py "$(ARTIFACTS_DIR)" /var/task

# The site deployer (template.yaml SiteDeployment): Powertools, its package, and the web client
# it publishes, shipped inside it (functions/sitedeploy/handler.py).
build-SiteDeployFunction:
	@$(LAMBDA_PIP) --requirement requirements.txt --target "$(ARTIFACTS_DIR)"
	@cp -R sitedeploy "$(ARTIFACTS_DIR)/"
	@cp -R $(REPO)web "$(ARTIFACTS_DIR)/web"
	@$(BYTECODE_PY) $(REPO)scripts/bytecode.py "$(ARTIFACTS_DIR)" /var/task

build-EngineLayer:
	@$(LAMBDA_PIP) --requirement requirements.txt --target "$(ARTIFACTS_DIR)/python"
	@cp -R mafia_engine "$(ARTIFACTS_DIR)/python/"
	@$(BYTECODE_PY) $(REPO)scripts/bytecode.py "$(ARTIFACTS_DIR)/python" /opt/python

# Each tier in its own process: Playwright's sync API keeps an event loop running on the
# main thread, which would break the asyncio-based e2e tests if they shared a process.
# The in-process tiers (CPU in the test process) run as two processes, one per core: the
# functions tier on one (582 s on a fresh clone), the e2e tier (105 s, mostly waiting on its
# stack's subprocesses; its soak on a scaled clock) then unit+bench+contract (407 s) on the
# other. The browser tier runs after them, alone: its pages and stack fill both cores. Each
# tier writes its own log, shown after: a failing tier's whole log, a passing one's closing
# lines, and each tier's seconds.
TIER_unit := tests/unit tests/bench tests/contract
TIER_e2e := tests/e2e
TIER_functions := tests/functions
TIER_browser := tests/browser
TIERS := e2e unit functions browser
RUN_TIER = ( start=$$(date +%s); $(BIN)/python -m pytest $(TIER_$(1)) >.test-logs/$(1).log 2>&1; \
  echo "$$? $$(( $$(date +%s) - start ))" >.test-logs/$(1).rc )
test: lint sam-check browser-deps
	@mkdir -p .test-logs
	@start=$$(date +%s); \
	$(call RUN_TIER,functions) & ( $(call RUN_TIER,e2e); $(call RUN_TIER,unit) ); wait; \
	$(call RUN_TIER,browser); \
	failed=0; for t in $(TIERS); do \
	  read rc secs <.test-logs/$$t.rc; echo "== $$t ($$secs s)"; \
	  if [ "$$rc" -eq 0 ]; then tail -n 3 .test-logs/$$t.log; else cat .test-logs/$$t.log; failed=1; fi; \
	done; echo "== the tiers: $$(( $$(date +%s) - start )) s"; test $$failed -eq 0

# checkov over template.yaml (CloudFormation framework: it reads SAM). Its own venv: checkov pins
# boto3, PyYAML and others exactly, which would clash with requirements.lock. Every check it
# would fail is skipped in the resource's Metadata with the reason (docs/operations.md).
CHECKOVENV := .venv-checkov
$(CHECKOVENV)/.installed: requirements-checkov.lock
	@test -x $(CHECKOVENV)/bin/python || $(PY) -m venv $(CHECKOVENV)
	$(CHECKOVENV)/bin/python -m pip install -q -r requirements-checkov.lock
	@touch $@

.PHONY: checkov
checkov: $(CHECKOVENV)/.installed
	$(CHECKOVENV)/bin/checkov --file template.yaml --framework cloudformation --quiet --compact --skip-download
test: checkov

bench: $(BIN)/.installed
	@for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b; done

clean:
	rm -rf .aws-sam .pytest_cache .ruff_cache .test-logs
