# make install [PREFIX=/usr/local]: a release build with the Swift runtime linked statically,
# the device profiles and shell completions (scripts/install.sh says what goes where).
PREFIX ?= /usr/local

.PHONY: build install test uninstall

build:
	swift build -c release --static-swift-stdlib --product seamcheck

install:
	scripts/install.sh --prefix "$(PREFIX)"

uninstall:
	rm -f "$(PREFIX)/bin/seamcheck" "$(PREFIX)/share/bash-completion/completions/seamcheck" \
	  "$(PREFIX)/share/zsh/site-functions/_seamcheck" "$(PREFIX)/share/fish/vendor_completions.d/seamcheck.fish"
	rm -rf "$(PREFIX)/share/seamcheck"

test:
	scripts/test.sh
