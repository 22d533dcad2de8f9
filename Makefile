# Everyday targets. CI runs .ci/run, which does all of these and more
# (docs/development.md).

GO          ?= go
FUZZTIME    ?= 10s
CACHE       := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/ksleuth-ci
STATICCHECK := $(CACHE)/bin/staticcheck

# The tests that hold output to golden files.
GOLDEN_TESTS := TestGolden$$|TestDumpGolden|TestDumpGoldenPayloads|TestDumpStateGolden|TestReportDataGolden|TestConsumersGolden|TestDocExamples

.PHONY: test race fuzz lint golden docs

test:
	$(GO) test ./...

race:
	$(GO) test -race -short ./...

# Every fuzz target for FUZZTIME each (make fuzz FUZZTIME=5m for a long run).
fuzz:
	@set -e; for pkg in $$(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do \
		for target in $$($(GO) test -list '^Fuzz' "$$pkg" | grep '^Fuzz'); do \
			echo "-- $$pkg $$target"; \
			$(GO) test -run='^$$' -fuzz="^$$target\$$" -fuzztime=$(FUZZTIME) "$$pkg"; \
		done; \
	done

# gofmt, go vet, staticcheck (pinned, built once into the cache; checks in
# staticcheck.conf), and the repository's guards (analysis/lint: tiers,
# vocabulary, sizes).
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change: $$out"; exit 1; fi
	$(GO) vet ./...
	@$(STATICCHECK) -version 2>/dev/null | grep -q '(0\.8\.2)' || GOBIN=$(dir $(STATICCHECK)) $(GO) install honnef.co/go/tools/cmd/staticcheck@v0.8.2
	$(STATICCHECK) ./...
	$(GO) test ./analysis/lint

# Rewrite the golden files from the current output; review git diff after.
golden:
	$(GO) test ./cmd/ksleuth -run '$(GOLDEN_TESTS)' -update

# Rewrite the generated docs: docs/commands/, docs/man/ and docs/findings.md.
docs:
	$(GO) test ./cmd/ksleuth -run 'TestCommandDocs$$' -update
	$(GO) test ./analysis/finding -update
