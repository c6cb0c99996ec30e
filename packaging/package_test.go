package packaging

import (
	"bufio"
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// repo is the repository's root, where scripts/package runs.
var repo = func() string {
	p, err := filepath.Abs("..")
	if err != nil {
		panic(err)
	}
	return p
}()

// Two versions, so that the second install is an upgrade. They sort
// before any real version (~), and name the test.
const (
	version1 = "0.0.0~pkgtest1"
	version2 = "0.0.0~pkgtest2"
)

// TestPackage builds the .deb, installs it into a scratch root, runs the
// installed monitor, verifies both units, and upgrades it over an edited
// configuration. Nothing is installed on the machine itself: dpkg runs
// with --root and the maintainer scripts without chroot, on $DPKG_ROOT.
func TestPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the monitor and the package: not in -short")
	}
	if os.Geteuid() != 0 {
		t.Skip("dpkg sets the files' owners in the scratch root: run as root (CI does)")
	}
	for _, tool := range []string{"dpkg", "dpkg-deb", "dpkg-query", "systemd-analyze", "systemd-sysusers", "systemd-tmpfiles"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is missing: scripts/setup installs it (%v)", tool, err)
		}
	}
	hostUsers := readFile(t, "/etc/passwd")

	deb1 := buildPackage(t, version1, true)
	checkDepends(t, deb1, filepath.Join(repo, "dist", "monitor"))
	root := scratchRoot(t)
	install(t, root, deb1)
	checkInstalled(t, root, version1)
	checkUnits(t, root)

	// The installer edits the configuration; the upgrade keeps the edit.
	conf := filepath.Join(root, "etc", "bjmonitor", "monitor.yaml")
	edited := strings.Replace(readFile(t, conf), "  id: table-1\n", "  id: table-7 # edited by the installer\n", 1)
	if !strings.Contains(edited, "table-7") {
		t.Fatal("the packaged configuration has no table id to edit")
	}
	if err := os.WriteFile(conf, []byte(edited), 0o640); err != nil {
		t.Fatal(err)
	}
	// As dpkg leaves a conffile it replaces: root's group. The upgrade
	// must give it back to bjmonitor's (checkOwners).
	if err := os.Chown(conf, 0, 0); err != nil {
		t.Fatal(err)
	}
	deb2 := buildPackage(t, version2, false)
	install(t, root, deb2)
	if got := readFile(t, conf); got != edited {
		t.Errorf("after the upgrade, /etc/bjmonitor/monitor.yaml =\n%s\nwant the installer's edit kept", got)
	}
	if got := run(t, root, "dpkg-query", "--admindir="+filepath.Join(root, "var", "lib", "dpkg"), "-W", "-f=${Version}", "bjmonitor"); got != version2 {
		t.Errorf("installed version after the upgrade = %q, want %q", got, version2)
	}
	checkOwners(t, root)

	if got := readFile(t, "/etc/passwd"); got != hostUsers {
		t.Error("the machine's /etc/passwd changed: the package's scripts reached outside the scratch root")
	}
}

// buildPackage runs scripts/package for version (building the binary, or
// packaging the one already in dist/) and returns the .deb's path.
func buildPackage(tb testing.TB, version string, build bool) string {
	tb.Helper()
	args := []string{filepath.Join(repo, "scripts", "package")}
	if !build {
		args = append(args, "--no-build")
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "VERSION="+version)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("scripts/package: %v\n%s", err, stderr.String())
	}
	deb := filepath.Join(repo, strings.TrimSpace(string(out)))
	tb.Cleanup(func() { os.Remove(deb) })
	if want := "bjmonitor_" + version + "_" + runtime.GOARCH + ".deb"; filepath.Base(deb) != want {
		tb.Fatalf("scripts/package wrote %s, want %s", deb, want)
	}
	if got := run(tb, "", "dpkg-deb", "-f", deb, "Version"); got != version {
		tb.Errorf("the package's version = %q, want %q", got, version)
	}
	return deb
}

// checkDepends: every shared library the binary links against comes from
// a package the .deb depends on, and none of its dependencies is a -dev
// package.
func checkDepends(t *testing.T, deb, binary string) {
	t.Helper()
	var depends []string
	for _, d := range strings.Split(run(t, "", "dpkg-deb", "-f", deb, "Depends"), ",") {
		name, _, _ := strings.Cut(strings.TrimSpace(d), " ")
		depends = append(depends, name)
		if strings.HasSuffix(name, "-dev") {
			t.Errorf("the package depends on %s, a -dev package", name)
		}
	}
	f, err := elf.Open(binary)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	for _, lib := range libs {
		out, err := exec.Command("dpkg", "-S", "*/"+lib).Output()
		if err != nil {
			t.Errorf("no installed package holds %s, which the binary links against", lib)
			continue
		}
		var from []string
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			pkgs, _, _ := strings.Cut(line, ": ")
			for _, p := range strings.Split(pkgs, ", ") {
				name, _, _ := strings.Cut(p, ":") // drop :amd64
				from = append(from, name)
			}
		}
		if !slices.ContainsFunc(from, func(p string) bool { return slices.Contains(depends, p) }) {
			t.Errorf("the binary links against %s, from %v, which the package does not depend on (Depends: %v)", lib, from, depends)
		}
	}
}

// scratchRoot is an empty root with a dpkg database.
func scratchRoot(tb testing.TB) string {
	tb.Helper()
	root := tb.TempDir()
	for _, d := range []string{"var/lib/dpkg/info", "var/lib/dpkg/updates"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "var/lib/dpkg/status"), nil, 0o644); err != nil {
		tb.Fatal(err)
	}
	return root
}

// install installs deb into root. The scripts run outside a chroot, with
// $DPKG_ROOT naming root; the dependencies (OpenCV, ffmpeg, systemd) are
// the machine's, not the root's, hence --force-depends.
func install(tb testing.TB, root, deb string) {
	tb.Helper()
	run(tb, "", "dpkg", "--root="+root, "--force-script-chrootless", "--force-depends",
		"--log="+filepath.Join(root, "dpkg.log"), "-i", deb)
}

// checkInstalled runs the installed monitor, from a folder with no models
// in it: it must find the installed models beside its binary.
func checkInstalled(t *testing.T, root, version string) {
	t.Helper()
	monitor := filepath.Join(root, "usr", "bin", "monitor")
	conf := filepath.Join(root, "etc", "bjmonitor", "monitor.yaml")
	got := run(t, t.TempDir(), monitor, "version", "--config", conf)
	models := filepath.Join(root, "usr", "share", "bjmonitor", "models", "cardindex")
	for _, want := range []string{
		"monitor " + version + "\n",
		"model cardindex.onnx, created ",
		"(" + filepath.Join(models, "cardindex.onnx") + ")",
		"fast model cardindex-fast.onnx, created ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("installed monitor version printed\n%s\nwant %q in it", got, want)
		}
	}
	// The PAR sheet of the installed configuration is the example's, as
	// cmd/monitor's golden file has it.
	par := run(t, t.TempDir(), monitor, "par", "--json", "--rounds", "20000", "--config", conf)
	want := readFile(t, filepath.Join(repo, "cmd", "monitor", "testdata", "par-example-config.json"))
	if par != strings.TrimSpace(want) {
		t.Errorf("installed monitor par --json differs from cmd/monitor/testdata/par-example-config.json:\n%s", par)
	}
}

// checkUnits verifies both installed units with systemd-analyze, which
// must print nothing (it exits 0 on a misspelt key, and only warns), and
// checks the settings the service relies on.
func checkUnits(t *testing.T, root string) {
	t.Helper()
	// The units' dependencies (network-online.target, multi-user.target…)
	// are systemd's own: a real box has them, the scratch root borrows the
	// machine's (a copy: symlinks resolve inside the root). -n keeps the
	// package's units.
	units := filepath.Join(root, "lib", "systemd", "system")
	if _, err := os.Stat("/lib/systemd/system/sysinit.target"); err != nil {
		t.Fatalf("no systemd units on this machine (%v): scripts/setup installs systemd", err)
	}
	run(t, "", "cp", "-an", "/lib/systemd/system/.", units)
	for _, unit := range []string{"bjmonitor-live.service", "bjmonitor-console.service"} {
		cmd := exec.Command("systemd-analyze", "verify", "--root="+root, unit)
		out, err := cmd.CombinedOutput()
		if err != nil || len(bytes.TrimSpace(out)) != 0 {
			t.Errorf("systemd-analyze verify %s: %v\n%s", unit, err, out)
		}
		// systemd's own review of the hardening: exposure 0 (locked down)
		// to 10 (none); the units measure 1.8 (live, which needs the
		// camera) and 1.5.
		cmd = exec.Command("systemd-analyze", "security", "--offline=true", "--root="+root, "--threshold=20", "--no-pager", unit)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("systemd-analyze security %s: exposure above 2.0 (%v)\n%s", unit, err, out)
		}
		keys := unitKeys(t, filepath.Join(units, unit))
		want := map[string]string{
			"Type": "notify", "Restart": "always", "User": "bjmonitor",
			"ProtectSystem": "strict", "ReadWritePaths": "/var/lib/bjmonitor", "NoNewPrivileges": "yes",
			"WorkingDirectory": "/var/lib/bjmonitor", "Environment": "MONITOR_LOG_FORMAT=json",
		}
		if unit == "bjmonitor-live.service" {
			want["SupplementaryGroups"] = "video"
			want["WatchdogSec"] = "30s"
		}
		for k, v := range want {
			if keys[k] != v {
				t.Errorf("%s: %s=%q, want %q", unit, k, keys[k], v)
			}
		}
	}
}

// unitKeys reads a unit file's settings (the last of each key).
func unitKeys(tb testing.TB, path string) map[string]string {
	tb.Helper()
	keys := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(readFile(tb, path)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			keys[k] = v
		}
	}
	return keys
}

// checkOwners: the state folder and the configuration belong to the
// bjmonitor user of the root, with no access for others.
func checkOwners(t *testing.T, root string) {
	t.Helper()
	uid, gid := -1, -1
	for _, line := range strings.Split(readFile(t, filepath.Join(root, "etc", "passwd")), "\n") {
		f := strings.Split(line, ":")
		if len(f) > 3 && f[0] == "bjmonitor" {
			uid, _ = strconv.Atoi(f[2])
			gid, _ = strconv.Atoi(f[3])
		}
	}
	if uid <= 0 {
		t.Fatal("no bjmonitor user in the root's /etc/passwd")
	}
	for _, f := range []struct {
		path     string
		uid, gid int
		mode     os.FileMode
	}{
		{"var/lib/bjmonitor", uid, gid, os.ModeDir | 0o750},
		{"etc/bjmonitor/monitor.yaml", 0, gid, 0o640},
	} {
		fi, err := os.Stat(filepath.Join(root, f.path))
		if err != nil {
			t.Error(err)
			continue
		}
		st := fi.Sys().(*syscall.Stat_t)
		if int(st.Uid) != f.uid || int(st.Gid) != f.gid || fi.Mode() != f.mode {
			t.Errorf("/%s: owner %d:%d mode %v, want %d:%d %v", f.path, st.Uid, st.Gid, fi.Mode(), f.uid, f.gid, f.mode)
		}
	}
}

// run runs a command in dir and returns its output, trimmed; it fails the
// test on an error.
func run(tb testing.TB, dir, name string, args ...string) string {
	tb.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

func readFile(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
