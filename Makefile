# TokenVault — every set-up step lives here, so a fresh Debian/Ubuntu machine with the Swift
# toolchain needs nothing but `make demo` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
APT_PACKAGES := libsodium-dev libsqlite3-dev pkg-config
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Warnings fail the build: the house rule is zero.
BUILD_FLAGS := -Xswiftc -warnings-as-errors

.PHONY: deps auth-server build test demo bench format clean

# Installs the C libraries when missing (sudo only when not root).
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

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

# The main job: an embedded vault under a temporary XDG data directory, every step printed.
demo: deps
	$(SWIFT) build $(BUILD_FLAGS) --product tokenvault-demo
	$(SWIFT) run --skip-build tokenvault-demo

bench: deps
	$(SWIFT) run -c release tokenvault-bench

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Benchmarks

clean:
	rm -rf .build
