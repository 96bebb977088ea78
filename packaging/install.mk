# Installation and the Debian package; included by the Makefile.
# make install DESTDIR=/tmp/root PREFIX=/usr     (PREFIX defaults to /usr/local)
# make deb                                      (.build/monkeyd_VERSION_ARCH.deb, by dpkg-buildpackage)

RELEASE_BIN := .build/release
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
BINDIR := $(PREFIX)/bin
UNITDIR := $(PREFIX)/lib/systemd/system
SYSUSERSDIR := $(PREFIX)/lib/sysusers.d
CATALOGDIR := $(PREFIX)/lib/systemd/catalog
MANDIR := $(PREFIX)/share/man
EXAMPLESDIR := $(PREFIX)/share/doc/monkeyd/examples
# Prometheus for a fleet (monkeyd(8), METRICS): the configurations and rules an
# operator copies; the rules' unit tests stay in the tree (make test runs them).
PROMETHEUS_EXAMPLES := prometheus.yml monkeyd-targets.yml federation.yml monkeyd.rules.yml monkeyd.alerts.yml
INSTALL ?= install
VERSION := $(shell sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/MonkeyCore/Engine/Engine.swift)
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB_BUILD := .build/deb
DEB_SOURCE := $(DEB_BUILD)/monkeyd-$(VERSION)
DEB := .build/monkeyd_$(VERSION)_$(DEB_ARCH).deb
DEB_NEXT := .build/monkeyd_$(VERSION)+next_$(DEB_ARCH).deb

.PHONY: release install deb deb-next

## release: optimised binaries with the Swift runtime linked in, so the
## target needs no toolchain (only libc and libsystemd).
release: deps
	$(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath

install: release
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(CATALOGDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(SYSCONFDIR)/monkeyd \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d $(DESTDIR)$(EXAMPLESDIR)/prometheus
	$(INSTALL) -m 755 -s $(RELEASE_BIN)/monkeyd $(RELEASE_BIN)/monkeyctl $(DESTDIR)$(BINDIR)/
	sed -e 's|/usr/bin/monkeyd|$(BINDIR)/monkeyd|' -e 's|/etc/monkeyd/|$(SYSCONFDIR)/monkeyd/|' \
		packaging/monkeyd.service >$(DESTDIR)$(UNITDIR)/monkeyd.service
	$(INSTALL) -m 644 packaging/monkeyd.socket $(DESTDIR)$(UNITDIR)/
	$(INSTALL) -m 644 packaging/sysusers.d/monkeyd.conf $(DESTDIR)$(SYSUSERSDIR)/monkeyd.conf
	$(INSTALL) -m 644 packaging/monkeyd.catalog $(DESTDIR)$(CATALOGDIR)/monkeyd.catalog
	$(INSTALL) -m 644 packaging/monkeyd.conf $(DESTDIR)$(SYSCONFDIR)/monkeyd/monkeyd.conf
	for page in $(MANPAGES); do $(INSTALL) -m 644 $$page $(DESTDIR)$(MANDIR)/man$${page##*.}/ || exit 1; done
	$(INSTALL) -m 644 packaging/completions/monkeyctl.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/monkeyctl
	$(INSTALL) -m 644 packaging/completions/_monkeyctl $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/
	$(INSTALL) -m 644 packaging/completions/monkeyctl.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/
	$(INSTALL) -m 644 $(addprefix packaging/prometheus/,$(PROMETHEUS_EXAMPLES)) $(DESTDIR)$(EXAMPLESDIR)/prometheus/

## deb: the Debian package, built as Debian builds packages: the tree (what git
## tracks or would track) copied to $(DEB_SOURCE), packaging/debian as its debian/,
## then dpkg-buildpackage, which runs `make release` and `make install` through
## debian/rules. debhelper writes the maintainer scripts.
deb: DEBIAN_PACKAGES += debhelper dpkg-dev
deb: deps
	@changelog=$$(dpkg-parsechangelog -l packaging/debian/changelog -S Version); \
	if [ "$$changelog" != "$(VERSION)" ]; then \
		echo "packaging/debian/changelog is at $$changelog but the code at $(VERSION): add a changelog entry" >&2; exit 1; \
	fi
	rm -rf $(DEB_BUILD)
	$(INSTALL) -d $(DEB_SOURCE)
	set -o pipefail; { git ls-files -z --cached --others --exclude-standard 2>/dev/null \
		|| find . -path ./.build -prune -o -type f -printf '%P\0'; } \
		| while IFS= read -r -d '' file; do [ ! -e "$$file" ] || printf '%s\0' "$$file"; done \
		| tar --null -T - -cf - | tar -C $(DEB_SOURCE) -xf -
	cp -R $(DEB_SOURCE)/packaging/debian $(DEB_SOURCE)/debian
	cd $(DEB_SOURCE) && dpkg-buildpackage -us -uc -b
	cp $(DEB_BUILD)/$(notdir $(DEB)) $(DEB)
	@echo "built $(DEB)"

## deb-next: the same package one version up ($(VERSION)+next), for the upgrade
## in test-systemd: the tree `make deb` left, built again without cleaning it,
## so only the packaging steps run again.
deb-next:
	@[ -d $(DEB_SOURCE)/debian ] || { echo "run make deb first" >&2; exit 1; }
	cd $(DEB_SOURCE) && { printf '%s\n' 'monkeyd ($(VERSION)+next) unstable; urgency=medium' '' \
		'  * The same code, one version up, to test upgrades.' '' \
		" -- $$(dpkg-parsechangelog -l packaging/debian/changelog -S Maintainer)  $$(date -R)" ''; cat packaging/debian/changelog; } >debian/changelog
	cd $(DEB_SOURCE) && dpkg-buildpackage -us -uc -b -nc
	cp $(DEB_BUILD)/$(notdir $(DEB_NEXT)) $(DEB_NEXT)
	@echo "built $(DEB_NEXT)"

## test-systemd: the end-to-end test under a booted systemd (root; see scripts/test-systemd).
.PHONY: test-systemd
test-systemd: deb
	lintian --fail-on error,warning $(DEB)
	$(MAKE) deb-next
	scripts/test-systemd $(DEB) $(DEB_NEXT)
