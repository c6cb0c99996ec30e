// Package packaging holds no code: it is the Debian package of the
// monitor (nfpm.yaml, the maintainer scripts, the systemd units, the
// sysusers.d and tmpfiles.d entries) and its test, which builds the
// package with scripts/package, installs it into a scratch root with dpkg,
// runs the installed monitor, verifies the units with systemd-analyze and
// upgrades over an edited configuration.
//
//	scripts/package                           # dist/bjmonitor_<version>_<arch>.deb
//	go test ./packaging/ -run TestPackage -v  # build, install, verify, upgrade
//
// nfpm itself is pinned in tools/go.mod, a module of its own, so that its
// dependencies stay out of the monitor's.
package packaging
