# gpstrackd on a fresh Debian 12 with the Swift toolchain, in two commands:
#
#   make run    the Debian packages the build needs (when missing), the release binary, and the
#               daemon on its embedded default: the file sink under ./state, gpsd at 127.0.0.1:2947
#   make test   the same, plus the test tools, then the test suite (swift test)
#   make deb    gpstrackd_<version>_<arch>.deb under .build/ (see scripts/make-deb)
#
# Each step does nothing when its work is done, and says nothing then.

RELEASE := swift build -c release --static-swift-stdlib --quiet --product gpstrackd
# Where `make run` keeps its spool and status (make run STATE_DIR=/tmp/x for another).
STATE_DIR ?= ./state

.PHONY: run test deb release deps test-deps

deps:
	@scripts/install-deps

test-deps:
	@scripts/install-deps --test

# As installed: the Swift runtime linked in, the recorded code layout (Package.swift).
release: deps
	@$(RELEASE)

run: release
	.build/release/gpstrackd run --state-dir $(STATE_DIR)

# The tests' spools, logs and state directories go under a directory of this run's own (TMPDIR),
# removed when every test passed and kept, with its path said, when one failed: a box that runs
# the suite again and again does not fill its /tmp (about 100 MB a run). Open to all, as /tmp is:
# some tests run the daemon as another user.
# In two passes: the unit tests (a minute of CPU in the fidelity suites), then the integration
# tests, whose real gpsd, emulators and daemons start dozens of processes in their first seconds
# and wait on the clock; together, on two cores, each starved the other's deadlines.
# Each pass takes two or three minutes; one that runs ten (a test that hangs) is ended by
# scripts/test-pass, which names the tests still running and prints the test process's threads.
test: test-deps release
	@scratch=$$(mktemp -d "$${TMPDIR:-/tmp}/gpstrackd-test-run.XXXXXX") && chmod 755 "$$scratch" && \
	if TMPDIR=$$scratch swift build --build-tests --quiet && \
	   TMPDIR=$$scratch scripts/test-pass 600 swift test --skip-build --skip IntegrationTests && \
	   TMPDIR=$$scratch scripts/test-pass 600 swift test --skip-build --filter IntegrationTests; then rm -rf "$$scratch"; \
	else status=$$?; echo "make test: the tests' files are kept in $$scratch" >&2; exit $$status; fi

deb: release
	@scripts/install-deps --deb
	@scripts/make-deb
