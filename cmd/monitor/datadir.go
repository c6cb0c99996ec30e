package main

import (
	"os"
	"path/filepath"
)

// The Debian package installs the binary as /usr/bin/monitor and the
// models under /usr/share/bjmonitor, while the services run in
// /var/lib/bjmonitor. A relative model path that is not found from the
// folder the monitor runs in is therefore also looked for in the data
// folder beside the binary's: <bin>/../share/bjmonitor. Tied to the
// binary rather than to a fixed /usr, it holds as well for a package
// unpacked into another root.

// findData returns path itself when it is absolute, empty or found from the
// working folder; otherwise the same relative path under the data folder of
// the binary at exe, when it is there; otherwise path unchanged, so that
// the error names the path as configured.
func findData(path, exe string) string {
	if path == "" || filepath.IsAbs(path) {
		return path
	}
	if _, err := os.Stat(path); err == nil || exe == "" {
		return path
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	alt := filepath.Join(filepath.Dir(exe), "..", "share", "bjmonitor", path)
	if _, err := os.Stat(alt); err == nil {
		return alt
	}
	return path
}

// executable is the running binary's path, or "" when the system cannot
// say.
func executable() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}
