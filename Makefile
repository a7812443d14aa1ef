# TokenVault — every set-up step lives here, so a fresh Debian/Ubuntu machine with the Swift
# toolchain needs nothing but `make demo` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
# libpq-dev is the PostgreSQL client library; postgresql brings the server binaries (initdb, postgres)
# the PostgreSQL tests and `make demo-fleet` start a throwaway server from. They never use the cluster
# the package sets up. libssl-dev is for libcrypto alone, which checks RS256 and ES256 ID-token signatures.
# git is for the tests of `tokenvault git-credential`, which run the real `git credential`; gnupg
# for `tokenvault secret import|export --format pass`, which runs `gpg`, and its tests.
# libcurl4-openssl-dev: a release `tokenvault` links Foundation statically, whose networking needs libcurl.so.
APT_PACKAGES := libsodium-dev libssl-dev libsqlite3-dev pkg-config libpq-dev postgresql git gnupg libcurl4-openssl-dev
# What only `make bench` compares against: pass and keepassxc-cli, never needed by `make test`.
BENCH_APT_PACKAGES := pass keepassxc
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Warnings fail the build: the house rule is zero.
BUILD_FLAGS := -Xswiftc -warnings-as-errors

.PHONY: deps bench-deps auth-server build test docs sanitize sanitize-address sanitize-thread stress fuzz \
  fuzz-build demo demo-fleet bench format clean

# Installs the apt packages of $(1) that are missing (sudo only when not root).
define apt_install
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
endef

# The C libraries.
deps:
	$(call apt_install,$(APT_PACKAGES))

# The benchmark's comparison tools; when they cannot be installed the cli section skips them and says so.
bench-deps:
	$(call apt_install,$(BENCH_APT_PACKAGES)) \
	  || echo "make: pass / keepassxc-cli could not be installed; the cli benchmark will skip them"

# The local OAuth 2.0 / OIDC server the integration tests start (Django OAuth Toolkit in .venv,
# from PyPI). Without PyPI the integration tests are skipped, each with a message saying why.
AUTH_SERVER_STATE := .build/auth-server
auth-server:
	@Tests/AuthorizationServer/setup.sh $(AUTH_SERVER_STATE) \
	  || echo "make: the authorization server could not be set up; integration tests will be skipped"

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

test: deps auth-server
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	$(SWIFT) test --skip-build

# The DocC archive of the library, $(DOCS_ARCHIVE), built with the toolchain's own docc (nothing is
# fetched) from the symbol graph of the debug build's modules: the build `make build` makes, reused
# as it is. `import TokenVault` re-exports the layers, so one graph of the umbrella module holds the
# whole public API. A warning fails it, an unresolved ``Symbol`` link among them, and so does Swift
# code in an article that no longer type-checks against the same modules.
TOOLCHAIN_BIN = $(dir $(realpath $(shell command -v $(SWIFT))))
DOCS_DIR := .build/docs
DOCS_CATALOG := Sources/TokenVault/TokenVault.docc
DOCS_ARCHIVE := $(DOCS_DIR)/TokenVault.doccarchive
# The modules the umbrella re-exports, read from it, so the graph follows when a layer is added.
DOCS_REEXPORTED = $(shell sed -n 's/^@_exported import //p' Sources/TokenVault/TokenVault.swift | paste -sd, -)
# Where the built modules are ($$modules, set in the recipe) and the C modules under them, which
# loading them needs; libpq's headers are not in the default search path.
DOCS_MODULE_FLAGS = -I $$modules $(foreach map,$(wildcard Sources/C*/module.modulemap),-I $(dir $(map))) \
  $(addprefix -Xcc ,$(shell pkg-config --cflags-only-I libpq))
docs: deps
	$(SWIFT) build $(BUILD_FLAGS) --target TokenVault
	@set -e; modules=$$($(SWIFT) build --show-bin-path)/Modules; \
	rm -rf $(DOCS_DIR)/symbol-graphs $(DOCS_ARCHIVE); mkdir -p $(DOCS_DIR)/symbol-graphs; \
	$(TOOLCHAIN_BIN)swift-symbolgraph-extract -module-name TokenVault $(DOCS_MODULE_FLAGS) \
	  -experimental-allowed-reexported-modules=$(DOCS_REEXPORTED) \
	  -minimum-access-level public -skip-inherited-docs -emit-extension-block-symbols \
	  -module-cache-path $(DOCS_DIR)/module-cache -output-dir $(DOCS_DIR)/symbol-graphs; \
	SWIFTC=$(TOOLCHAIN_BIN)swiftc Scripts/check-doc-snippets.sh $(DOCS_CATALOG) $(DOCS_DIR)/snippets \
	  $(DOCS_MODULE_FLAGS) -module-cache-path $(DOCS_DIR)/module-cache; \
	$(TOOLCHAIN_BIN)docc convert $(DOCS_CATALOG) --additional-symbol-graph-dir $(DOCS_DIR)/symbol-graphs \
	  --output-path $(DOCS_ARCHIVE) --warnings-as-errors
	@echo "make docs: $(DOCS_ARCHIVE)"

# The whole suite under AddressSanitizer (with LeakSanitizer), then under ThreadSanitizer: each
# in its own build directory, so the normal build is untouched. Any report fails the run
# (LeakSanitizer exits 23, ThreadSanitizer 66). The leak suppressions name toolchain libraries only.
SANITIZER_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
  LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/Sanitizers/lsan-suppressions.txt:print_suppressions=0 \
  TSAN_OPTIONS=second_deadlock_stack=1
sanitize: sanitize-address sanitize-thread

sanitize-address sanitize-thread: sanitize-%: deps auth-server
	$(SWIFT) build --build-tests --sanitize=$* --scratch-path .build/sanitize-$* $(BUILD_FLAGS)
	$(SANITIZER_ENV) $(SWIFT) test --skip-build --sanitize=$* --scratch-path .build/sanitize-$*

# The long reliability runs: 500 SIGKILLed writers on a vault file and 500 on a vault in PostgreSQL,
# 125 SIGKILLed key rotations, 8 processes x 5,000 mixed operations. `make test` runs the same tests
# shorter (40 kills each, 10 rotations, 4 x 1,000).
STRESS_KILLS ?= 500
STRESS_WORKERS ?= 8
STRESS_OPERATIONS ?= 5000
stress: deps auth-server
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	TOKENVAULT_CRASH_KILLS=$(STRESS_KILLS) TOKENVAULT_LOAD_WORKERS=$(STRESS_WORKERS) \
	  TOKENVAULT_LOAD_OPERATIONS=$(STRESS_OPERATIONS) \
	  $(SWIFT) test --skip-build --filter 'CrashConsistencyTests|MultiProcessLoadTests|FullDiskTests|aRotationKilledAtAnyPoint'

# The main job, end to end: a demo vault under a temporary XDG data directory, the local test
# authorization server, then login, list, token, refresh, revoke with the CLI, each step printed.
demo: deps
	$(SWIFT) build $(BUILD_FLAGS) --product tokenvault-core
	$(SWIFT) build $(BUILD_FLAGS) --product tokenvault
	Scripts/demo.sh

# The same CLI as a fleet: a vault on a throwaway local PostgreSQL server (initdb into a temporary
# folder, stopped by PID), one sign-in, then three concurrent `tokenvault token` processes on the
# expiring token, and a check at the test server that they made exactly one refresh request.
demo-fleet: deps
	$(SWIFT) build $(BUILD_FLAGS) --product tokenvault-core
	$(SWIFT) build $(BUILD_FLAGS) --product tokenvault
	Scripts/demo-fleet.sh

# Benchmarks: never part of `make test`; the fleet section starts a throwaway PostgreSQL and the
# authorization server, as the tests do. BENCH_ARGS adds options (--quick, --only vault, --dir DIR);
# results also go to $(BENCH_JSON), with an SVG chart beside it. Build and run share flags (no rebuild).
BENCH_ARGS ?=
BENCH_JSON ?= .build/bench/results.json
# The `tokenvault` and `tokenvault-core` the cli section times carry the Swift runtime and
# Foundation inside them (--static-swift-stdlib): loading them as shared libraries took about half
# of each call's start-up. They are built in a folder of their own, as the harness cannot be linked
# so (the test support it uses needs the Testing library, which has no static form), and SwiftPM's
# flag recompiles every module it reaches. Debug builds (tests, sanitizers) stay dynamic.
# TOKENVAULT_BENCH_CLI names the front, which runs the core beside it.
STATIC_CLI_FLAGS := -c release --static-swift-stdlib --scratch-path .build/static $(BUILD_FLAGS)
bench: deps auth-server bench-deps
	$(SWIFT) build -c release $(BUILD_FLAGS) --product tokenvault-bench
	$(SWIFT) build $(STATIC_CLI_FLAGS) --product tokenvault-core
	$(SWIFT) build $(STATIC_CLI_FLAGS) --product tokenvault
	TOKENVAULT_BENCH_CLI=$(CURDIR)/.build/static/release/tokenvault \
	  $(SWIFT) run -c release --skip-build tokenvault-bench --json $(BENCH_JSON) $(BENCH_ARGS)

# Fuzzing with libFuzzer (Fuzz/): each target runs for FUZZ_SECONDS (CI: FUZZ_SECONDS=20), starting
# from the committed seeds in Fuzz/Corpus/<target>; what it finds goes to $(FUZZ_CORPUS)/<target>,
# never to the committed folder. Any crash, hang, out-of-memory or sanitizer report fails the run
# and names the input file (under $(FUZZ_ARTIFACTS)); replay one without libFuzzer with
# `swift run <target> <file>`. Release (-O) with AddressSanitizer: several times more runs/s than debug.
# The Swift backtracer is off while fuzzing: under AddressSanitizer it reports itself; libFuzzer prints the stack.
FUZZ_SECONDS ?= 300
FUZZ_TARGETS := FuzzItemRecord FuzzKeySlot FuzzVaultFile FuzzTokenResponse FuzzJWT FuzzTokenRecord
FUZZ_ARGS ?= -timeout=10 -rss_limit_mb=2048
FUZZ_SCRATCH := .build/fuzz
FUZZ_CORPUS := .build/fuzz-corpus
FUZZ_ARTIFACTS := .build/fuzz-artifacts
# SwiftPM passes -Xswiftc to the link too: the gold linker fails on libFuzzer's runtime, lld does not.
FUZZ_BUILD_FLAGS := --scratch-path $(FUZZ_SCRATCH) -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
  -Xswiftc -use-ld=lld $(BUILD_FLAGS)

fuzz-build: deps
	@for target in $(FUZZ_TARGETS); do \
	  $(SWIFT) build $(FUZZ_BUILD_FLAGS) --product $$target || exit 1; \
	done

fuzz: fuzz-build
	@failed=""; for target in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_CORPUS)/$$target $(FUZZ_ARTIFACTS)/$$target; \
	  log=$(FUZZ_ARTIFACTS)/$$target.log; \
	  dict=Fuzz/Dictionaries/$$target.dict; [ -f $$dict ] && dict="-dict=$$dict" || dict=""; \
	  echo "== $$target: $(FUZZ_SECONDS) s (log: $$log)"; \
	  if SWIFT_BACKTRACE=enable=no $(FUZZ_SCRATCH)/release/$$target $(FUZZ_CORPUS)/$$target Fuzz/Corpus/$$target $$dict \
	      -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=$(FUZZ_ARTIFACTS)/$$target/ -print_final_stats=1 \
	      $(FUZZ_ARGS) >$$log 2>&1; then \
	    grep -E '^#[0-9]+[[:space:]]+DONE|^Done [0-9]+ runs' $$log; \
	  else \
	    tail -n 60 $$log; grep -E 'Test unit written to|^SUMMARY' $$log; failed="$$failed $$target"; \
	  fi; \
	done; \
	if [ -n "$$failed" ]; then echo "make fuzz: failed:$$failed"; exit 1; fi
	@echo "make fuzz: no crash in $(words $(FUZZ_TARGETS)) targets ($(FUZZ_SECONDS) s each)"

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Benchmarks Fuzz

clean:
	rm -rf .build
