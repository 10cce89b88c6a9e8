# The two commands: `make dev` and `make test` (`make check`: the quick part of it). All install
# what they need.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
SAMVENV := .venv-sam
PORT ?= 8000
HOST ?= 127.0.0.1
export AWS_DEFAULT_REGION ?= us-east-1
# Python's default: each module compiled once to __pycache__, every later process loads the
# bytecode. A shell that sets PYTHONDONTWRITEBYTECODE (this machine's does) would make every
# process of a run (each part, each stack, each of its containers) compile every module it
# imports again: ~10 % of `make check`'s CPU.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: dev test check install install-sam lint unit functions e2e browser browser-deps sam-check build bench lock clean web

# The venvs install the lock files (every package pinned exactly); `make lock` regenerates
# them from requirements-dev.txt / requirements-sam.txt (the direct dependencies). --no-compile:
# a module's bytecode is written when something first imports it, not for every module of every
# package at install (half the install's CPU, most of it for modules no test imports).
PIP_INSTALL = -m pip install -q --no-compile
$(BIN)/.installed: requirements.lock
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python $(PIP_INSTALL) -r requirements.lock
	@touch $@

$(SAMVENV)/.installed: requirements-sam.lock
	@test -x $(SAMVENV)/bin/python || $(PY) -m venv $(SAMVENV)
	$(SAMVENV)/bin/python $(PIP_INSTALL) -r requirements-sam.lock
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

# coturn: voice's TURN relay in the offline stack (scripts/ensure-coturn.sh; without it the
# stack runs, and public rooms' voice, relay only, stays silent)
install: $(BIN)/.installed
	@scripts/ensure-coturn.sh || echo "make install: continuing without coturn (voice has no TURN relay)"
install-sam: $(SAMVENV)/.installed

# ---- The web client, built (docs/architecture.md, "Client build"): esbuild, pinned exactly in
# package.json / package-lock.json (npm ci: the lock's bytes; --ignore-scripts: its postinstall
# only checks the binary package npm picked), bundles web/ into build/web/
# (scripts/build_web.mjs): what the offline stack serves and the site deployer publishes.
# Rebuilt when a file of web/, the script or the lock changes; index.html is written last.
WEB_BUILD := build/web
WEB_SOURCES := $(shell find web -type f -not -name '.*' 2>/dev/null)
node_modules/.installed: package-lock.json
	npm ci --no-audit --no-fund --ignore-scripts
	@touch $@

$(WEB_BUILD)/index.html: node_modules/.installed scripts/build_web.mjs $(WEB_SOURCES)
	node scripts/build_web.mjs $(WEB_BUILD)

web: $(WEB_BUILD)/index.html

dev: $(BIN)/.installed web
	@scripts/ensure-coturn.sh || echo "make dev: continuing without coturn (voice has no TURN relay)"
	$(BIN)/python -m local --host $(HOST) --port $(PORT)

lint: $(BIN)/.installed
	$(BIN)/ruff check .

unit: $(BIN)/.installed
	$(BIN)/python -m pytest tests/unit

functions: $(BIN)/.installed
	$(BIN)/python -m pytest tests/functions

e2e: $(BIN)/.installed
	$(BIN)/python -m pytest tests/e2e

# What the browser tier needs: axe-core (the accessibility checks) from npm, pinned in
# tests/browser/package-lock.json, then Chromium and the screenshot fonts (Korean, emoji):
# apt-get when root, else the command to run (scripts/browser-ready.sh; `make test`'s shards
# run the same script).
browser-deps:
	scripts/browser-ready.sh

browser: $(BIN)/.installed browser-deps
	$(BIN)/python -m pytest tests/browser

TEMPLATE_CHECKS := $(SAMVENV)/bin/sam validate --lint --template template.yaml && $(BIN)/cfn-lint template.yaml
sam-check: build
	$(TEMPLATE_CHECKS)

# The deployable artifacts (what `sam deploy` uploads), built and checked; `make test` too.
build: $(BIN)/.installed $(SAMVENV)/.installed web
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
# each artifact's packages: installed once per requirements file (scripts/lambda_deps.sh), copied
LAMBDA_DEPS := LAMBDA_PIP="$(LAMBDA_PIP)" LAMBDA_DEPS="$(REPO).aws-sam/lambda-deps" $(REPO)scripts/lambda_deps.sh
LAMBDA_FUNCTIONS := RestFunction WsConnectFunction WsDisconnectFunction WsDefaultFunction WsReportFunction TimerFunction

$(addprefix build-,$(LAMBDA_FUNCTIONS)):
	@$(LAMBDA_DEPS) requirements.txt "$(ARTIFACTS_DIR)"
	@cp -R handlers service "$(ARTIFACTS_DIR)/"
	@$(BYTECODE_PY) $(REPO)scripts/bytecode.py "$(ARTIFACTS_DIR)" /var/task

# The site deployer (template.yaml SiteDeployment): Powertools, its package, and the web client
# it publishes, built (build/web: `make web`, which `make build` runs first), shipped inside it
# (functions/sitedeploy/handler.py).
build-SiteDeployFunction:
	@$(LAMBDA_DEPS) requirements.txt "$(ARTIFACTS_DIR)"
	@cp -R sitedeploy "$(ARTIFACTS_DIR)/"
	@test -f $(REPO)$(WEB_BUILD)/index.html || { echo "no $(WEB_BUILD): run make web" >&2; exit 1; }
	@cp -R $(REPO)$(WEB_BUILD) "$(ARTIFACTS_DIR)/web"
	@$(BYTECODE_PY) $(REPO)scripts/bytecode.py "$(ARTIFACTS_DIR)" /var/task

build-EngineLayer:
	@$(LAMBDA_DEPS) requirements.txt "$(ARTIFACTS_DIR)/python"
	@cp -R mafia_engine "$(ARTIFACTS_DIR)/python/"
	@$(BYTECODE_PY) $(REPO)scripts/bytecode.py "$(ARTIFACTS_DIR)/python" /opt/python

# checkov over template.yaml (CloudFormation framework: it reads SAM). Its own venv: checkov pins
# boto3, PyYAML and others exactly, which would clash with requirements.lock. Every check it
# would fail is skipped in the resource's Metadata with the reason (docs/operations.md).
CHECKOVENV := .venv-checkov
$(CHECKOVENV)/.installed: requirements-checkov.lock
	@test -x $(CHECKOVENV)/bin/python || $(PY) -m venv $(CHECKOVENV)
	$(CHECKOVENV)/bin/python $(PIP_INSTALL) -r requirements-checkov.lock
	@touch $@

CHECKOV := $(CHECKOVENV)/bin/checkov --file template.yaml --framework cloudformation --quiet --compact --skip-download
.PHONY: checkov
checkov: $(CHECKOVENV)/.installed
	$(CHECKOV)

# ---- `make test`: every part below, four at a time on the two cores from the first second
# (`make -j4 -k` in the order of PARTS, each starting as soon as a slot is free): the browser
# tier is two of them (tests/browser/shards.py), started first as the longest, whose pages
# mostly wait for a push, so two more parts keep the cores busy meanwhile. Each part is a
# process of its own (Playwright's sync API keeps an event loop on the main thread, which would
# break the asyncio-based stack tests in a shared process); it writes its output to
# .test-logs/<part>.log and "<exit code> <seconds>" to .test-logs/<part>.rc. A part's make
# prerequisites (a venv, the SAM build, npm's axe-core) run in the same queue, their output on
# the terminal. Shown after: each part's seconds, a failing part's whole log, a passing one's
# closing lines; `make test` fails if any part failed or did not run (a missing prerequisite
# fails its part: nothing is skipped).
# The parts:
# the Lambda handlers on moto, in process (the deploy rehearsal and the permission checks go
# with the template: both translate it in the SAM CLI's venv)
# (two processes, half the files each: HANDLERS_SHARD, tests/functions/shards.py; one process
# ran alone for minutes at the end of the run, one core idle)
HANDLERS := $(BIN)/python -m pytest tests/functions --ignore=tests/functions/test_rehearsal.py \
	--ignore=tests/functions/test_permissions.py
PART_handlers-1 := HANDLERS_SHARD=1/2 $(HANDLERS)
PART_handlers-2 := HANDLERS_SHARD=2/2 $(HANDLERS)
# the offline stack in subprocesses, real sockets
PART_stack := $(BIN)/python -m pytest tests/e2e
# each bench/ script's quick mode and its JSON (the figures: `make bench`)
PART_benches := $(BIN)/python -m pytest tests/bench
# the SAM build (checked by scripts/check_build.py), then sam validate --lint and cfn-lint, then
# the deploy rehearsal (tests/functions/test_rehearsal.py: it translates in the SAM CLI's venv
# and runs the built site deployer) and the permissions every handler path needs, checked
# against the translated template's roles (tests/functions/test_permissions.py)
PART_template := $(TEMPLATE_CHECKS) && $(BIN)/python -m pytest tests/functions/test_rehearsal.py \
	tests/functions/test_permissions.py
part-template: build
PART_checkov := $(CHECKOV)
part-checkov: $(CHECKOVENV)/.installed
# Chromium against the offline stack, half the files each (BROWSER_SHARD, tests/browser/shards.py),
# after what the browser tier needs: axe-core, Chromium and the fonts (scripts/browser-ready.sh,
# run by each shard under one lock: the first installs, the other waits; not a make
# prerequisite, which would wait for a free slot and start the longest parts last)
BROWSER_READY := flock .test-logs/browser-deps.lock scripts/browser-ready.sh
PART_browser-1 := $(BROWSER_READY) && BROWSER_SHARD=1/2 $(BIN)/python -m pytest tests/browser
PART_browser-2 := $(BROWSER_READY) && BROWSER_SHARD=2/2 $(BIN)/python -m pytest tests/browser
# every preset through the same checks (the room layer on moto, the client's bots on a stack)
PART_contract := $(BIN)/python -m pytest tests/contract
# the engine and the modules, no AWS
PART_unit := $(BIN)/python -m pytest tests/unit
PART_lint := $(BIN)/ruff check .
# the order they start in: the longest first (a clean clone, four at a time on 2 cores, each
# slowed by the others, two runs of 2026-12-06: the browser halves ~440-495 s, the handler
# halves ~220-280 s, unit ~225-245 s, stack ~205-260 s, benches ~120-155 s, the template with
# the rehearsal ~75-90 s after the build, contract ~50 s, checkov ~15 s; the whole 600-645 s;
# the machine is CPU-bound throughout, so the whole is about the busy CPU over two cores,
# 1,150-1,235 CPU-s)
PARTS := browser-1 browser-2 handlers-1 handlers-2 stack unit benches template contract checkov lint

# `make check`, the inner loop: the parts that need no browser and no stack, the handler and
# unit tiers without the tests marked `whole_game` (whole games, many days, the 10,000-frame
# fuzz, the thousand random bot games) or `deliberate_break` (the deploy rehearsal run again on
# templates and packages broken on purpose): `make test` runs them
QUICK := -m "not whole_game and not deliberate_break"
PART_handlers-quick-1 := HANDLERS_SHARD=1/2 $(HANDLERS) $(QUICK)
PART_handlers-quick-2 := HANDLERS_SHARD=2/2 $(HANDLERS) $(QUICK)
PART_unit-quick := $(BIN)/python -m pytest tests/unit $(QUICK)
# the rehearsal and the permission checks, a part of their own as in `make test` (they translate
# the template in the SAM CLI's venv: `check` installs it too, so a fresh clone's `make check`
# runs them rather than failing on a missing venv; without `sam build` and the linters)
PART_rehearsal-quick := $(BIN)/python -m pytest tests/functions/test_rehearsal.py tests/functions/test_permissions.py $(QUICK)
PART_contract-quick := $(BIN)/python -m pytest tests/contract $(QUICK)
# longest first, two at a time (a quiet machine: the handler halves ~65 CPU-s each, unit ~45,
# the rehearsal ~28, the contract ~11; ~116 s in all; three at a time only added contention)
CHECK_PARTS := handlers-quick-1 handlers-quick-2 unit-quick rehearsal-quick contract-quick lint

# each part's CPU: the shell's own `times` after it (not in a pipe, whose subshell would have
# waited for nothing; its second line: the CPU of the processes it waited for, Chromium's
# included), summed to seconds in .test-logs/<part>.cpu
part-%:
	@s=$$(date +%s); { $(PART_$*); } >.test-logs/$*.log 2>&1; echo "$$? $$(( $$(date +%s) - s ))" >.test-logs/$*.rc; \
	times >.test-logs/$*.times; tail -n 1 .test-logs/$*.times | awk '{ t = 0; for (i = 1; i <= NF; i++) { split($$i, a, "m"); t += a[1] * 60 + a[2] } printf "%.1f\n", t }' >.test-logs/$*.cpu

# The report: each part's seconds and log; fails if any part failed or did not run. Last, the
# failed parts' test lines again (a log's tail, as CI shows it, then names what failed).
# A part's CPU-s count what its shell waited for: Chromium's renderers and helpers are reaped by
# Chromium, not by the part, so the browser parts' figures are about half their real CPU; the
# machine's busy CPU-s over the run (/proc/stat, every process on it) is the whole figure.
REPORT = busy() { [ -r .test-logs/stat0 ] && head -n 1 /proc/stat | cat .test-logs/stat0 - | awk -v hz=$$(getconf CLK_TCK) \
	  '{ b = $$2 + $$3 + $$4 + $$7 + $$8 + $$9; i = $$5 + $$6 } NR == 1 { b0 = b; i0 = i } \
	  END { printf ", the machine %.0f CPU-s busy of %.0f", (b - b0) / hz, (b - b0 + i - i0) / hz }'; }; \
	failed=0; for t in $(1); do \
	  if [ ! -f .test-logs/$$t.rc ]; then echo "== $$t: did not run"; failed=1; continue; fi; \
	  read rc secs <.test-logs/$$t.rc; echo "== $$t ($$secs s, $$(cat .test-logs/$$t.cpu 2>/dev/null) CPU-s)"; \
	  if [ "$$rc" -eq 0 ]; then tail -n 3 .test-logs/$$t.log; else cat .test-logs/$$t.log; failed=1; fi; \
	done; echo "== all: $$(( $$(date +%s) - $$(cat .test-logs/start) )) s, $$(cat .test-logs/*.cpu 2>/dev/null | awk '{ t += $$1 } END { print t + 0 }') CPU-s in the parts$$(busy)"; \
	for t in $(1); do [ -f .test-logs/$$t.rc ] && read rc secs <.test-logs/$$t.rc && [ "$$rc" -ne 0 ] && \
	  { echo "== failed: $$t (exit $$rc)"; grep -E '^E  ' .test-logs/$$t.log | cut -c1-300 | tail -n 12; grep -E '^(FAILED|ERROR) ' .test-logs/$$t.log | cut -c1-300 | tail -n 12; }; done; \
	test $$failed -eq 0

test: $(BIN)/.installed web
	@rm -rf .test-logs && mkdir -p .test-logs && date +%s >.test-logs/start && head -n 1 /proc/stat >.test-logs/stat0
	@$(MAKE) --no-print-directory -j4 -k $(addprefix part-,$(PARTS)) || true
	@$(call REPORT,$(PARTS))

check: $(BIN)/.installed $(SAMVENV)/.installed web
	@rm -rf .test-logs && mkdir -p .test-logs && date +%s >.test-logs/start && head -n 1 /proc/stat >.test-logs/stat0
	@$(MAKE) --no-print-directory -j2 -k $(addprefix part-,$(CHECK_PARTS)) || true
	@$(call REPORT,$(CHECK_PARTS))

bench: $(BIN)/.installed
	@for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b; done

clean:
	rm -rf .aws-sam .pytest_cache .ruff_cache .test-logs build
