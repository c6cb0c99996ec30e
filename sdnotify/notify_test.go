package sdnotify

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// listen opens a notification socket as systemd does, at a path in a
// temporary folder (or, for a name starting with @, in the abstract
// namespace), and points $NOTIFY_SOCKET at it.
func listen(tb testing.TB, name string) *net.UnixConn {
	tb.Helper()
	if !strings.HasPrefix(name, "@") {
		name = filepath.Join(tb.TempDir(), name)
	}
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: name, Net: "unixgram"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	tb.Setenv("NOTIFY_SOCKET", name)
	return conn
}

// receive returns the next message on conn, or "" when none comes within
// wait.
func receive(tb testing.TB, conn *net.UnixConn, wait time.Duration) string {
	tb.Helper()
	if err := conn.SetReadDeadline(time.Now().Add(wait)); err != nil {
		tb.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, err := conn.Read(buf)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return ""
	}
	if err != nil {
		tb.Fatal(err)
	}
	return string(buf[:n])
}

func TestSend(t *testing.T) {
	for _, socket := range []string{"notify", "@bjmonitor-sdnotify-test-" + strings.ReplaceAll(t.Name(), "/", "-")} {
		t.Run(socket, func(t *testing.T) {
			conn := listen(t, socket)
			n := FromEnv()
			tests := []struct {
				name string
				send func() error
				want string
			}{
				{"ready", func() error { return n.Ready("watching the table") }, "READY=1\nSTATUS=watching the table\n"},
				{"watchdog", n.Watchdog, "WATCHDOG=1\n"},
				{"status on one line", func() error { return n.Status("two\nlines") }, "STATUS=two lines\n"},
				{"stopping", n.Stopping, "STOPPING=1\nSTATUS=stopping\n"},
			}
			for _, tt := range tests {
				if err := tt.send(); err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
				if got := receive(t, conn, time.Second); got != tt.want {
					t.Errorf("%s sent %q, want %q", tt.name, got, tt.want)
				}
			}
		})
	}
}

func TestSendRefuses(t *testing.T) {
	listen(t, "notify")
	n := FromEnv()
	for _, state := range [][]string{{"READY=1\nWATCHDOG=1"}, {"READY"}, nil} {
		if err := n.Send(state...); err == nil {
			t.Errorf("Send(%q) = nil, want an error", state)
		}
	}
	// Systemd gone: the error says so, and nothing panics.
	t.Setenv("NOTIFY_SOCKET", filepath.Join(t.TempDir(), "gone"))
	if err := FromEnv().Watchdog(); err == nil {
		t.Error("Watchdog() to a missing socket = nil, want an error")
	}
}

// TestOutsideSystemd: with no $NOTIFY_SOCKET nothing is sent and nothing
// fails, and a nil Notifier does the same.
func TestOutsideSystemd(t *testing.T) {
	t.Setenv("NOTIFY_SOCKET", "")
	t.Setenv("WATCHDOG_USEC", "1000000")
	for _, n := range []*Notifier{FromEnv(), nil} {
		if n.Enabled() || n.WatchdogTimeout() != 0 {
			t.Errorf("%+v: Enabled %v, WatchdogTimeout %v, want false, 0", n, n.Enabled(), n.WatchdogTimeout())
		}
		if err := n.Ready("x"); err != nil {
			t.Errorf("Ready outside systemd: %v", err)
		}
	}
}

func TestWatchdogTimeout(t *testing.T) {
	pid := os.Getpid()
	tests := []struct {
		name, usec, pid string
		want            time.Duration
		err             bool
	}{
		{"none", "", "", 0, false},
		{"for this process", "30000000", "1234", 30 * time.Second, false},
		{"for any process", "500000", "", 500 * time.Millisecond, false},
		{"for another process", "30000000", "999", 0, false},
		{"not a number", "30s", "", 0, true},
		{"zero", "0", "", 0, true},
		{"bad pid", "30000000", "me", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.pid
			if p == "1234" {
				p = strconv.Itoa(pid)
			}
			got, err := watchdogTimeout(tt.usec, p, pid)
			if got != tt.want || (err != nil) != tt.err {
				t.Errorf("watchdogTimeout(%q, %q) = %v, %v; want %v, error %v", tt.usec, p, got, err, tt.want, tt.err)
			}
		})
	}
}

// FuzzWatchdogTimeout: whatever systemd's environment holds, the parser
// returns a positive timeout, no timeout, or an error, and never panics.
func FuzzWatchdogTimeout(f *testing.F) {
	for _, s := range [][2]string{{"30000000", ""}, {"30000000", "1"}, {"", ""}, {"0", ""}, {"-5", "x"}, {"9223372036854775807", ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, usec, pid string) {
		d, err := watchdogTimeout(usec, pid, 1)
		if err != nil && d != 0 || d < 0 {
			t.Errorf("watchdogTimeout(%q, %q) = %v, %v", usec, pid, d, err)
		}
	})
}
