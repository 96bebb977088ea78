# Installation and the Debian package; included by the Makefile.
# make install DESTDIR=/tmp/root PREFIX=/usr     (PREFIX defaults to /usr/local)
# make deb                                      (.build/monkeyd_VERSION_ARCH.deb)

RELEASE_BIN := .build/release
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
BINDIR := $(PREFIX)/bin
UNITDIR := $(PREFIX)/lib/systemd/system
SYSUSERSDIR := $(PREFIX)/lib/sysusers.d
CATALOGDIR := $(PREFIX)/lib/systemd/catalog
MANDIR := $(PREFIX)/share/man
INSTALL ?= install
VERSION := $(shell sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/MonkeyCore/Engine/Engine.swift)
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB_ROOT := .build/deb/debian/monkeyd
DEB := .build/monkeyd_$(VERSION)_$(DEB_ARCH).deb

.PHONY: release install deb

## release: optimised binaries with the Swift runtime linked in, so the
## target needs no toolchain (only libc and libsystemd).
release: deps
	$(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath

install: release
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(CATALOGDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(SYSCONFDIR)/monkeyd \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
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

## deb: an installable package built with dpkg-deb from `make install PREFIX=/usr`.
deb:
	rm -rf $(DEB_ROOT)
	$(MAKE) install DESTDIR=$(CURDIR)/$(DEB_ROOT) PREFIX=/usr
	gzip -9n $(DEB_ROOT)/usr/share/man/man*/*
	$(INSTALL) -d $(DEB_ROOT)/DEBIAN $(DEB_ROOT)/usr/share/doc/monkeyd
	$(INSTALL) -m 644 packaging/debian/copyright $(DEB_ROOT)/usr/share/doc/monkeyd/copyright
	gzip -9n <packaging/debian/changelog >$(DEB_ROOT)/usr/share/doc/monkeyd/changelog.gz
	chmod 644 $(DEB_ROOT)/usr/share/doc/monkeyd/changelog.gz
	$(INSTALL) -m 755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm $(DEB_ROOT)/DEBIAN/
	echo /etc/monkeyd/monkeyd.conf >$(DEB_ROOT)/DEBIAN/conffiles
	$(INSTALL) -d .build/deb/debian
	printf 'Source: monkeyd\n\nPackage: monkeyd\nArchitecture: any\n' >.build/deb/debian/control
	cd .build/deb && dpkg-shlibdeps -O -e debian/monkeyd/usr/bin/monkeyd -e debian/monkeyd/usr/bin/monkeyctl | sed 's/^shlibs:Depends=//' >shlibs
	sed -e 's/@VERSION@/$(VERSION)/' -e 's/@ARCH@/$(DEB_ARCH)/' -e "s/@SHLIBS@/$$(cat .build/deb/shlibs)/" \
		-e "s/@SIZE@/$$(du -sk --exclude=DEBIAN $(DEB_ROOT) | cut -f1)/" \
		packaging/debian/control >$(DEB_ROOT)/DEBIAN/control
	dpkg-deb --root-owner-group -Zxz --build $(DEB_ROOT) $(DEB)
	@echo "built $(DEB)"

## test-systemd: the end-to-end test under a booted systemd (root; see scripts/test-systemd).
.PHONY: test-systemd
test-systemd: deb
	lintian --fail-on error,warning $(DEB)
	scripts/test-systemd $(DEB)
