package sdnotify

import (
	"context"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// until reads messages from conn until one contains want, and returns
// them; it fails the test when none does within wait.
func until(tb testing.TB, conn *net.UnixConn, want string, wait time.Duration) []string {
	tb.Helper()
	var got []string
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		m := receive(tb, conn, time.Until(deadline))
		if m == "" {
			break
		}
		got = append(got, m)
		if strings.Contains(m, want) {
			return got
		}
	}
	tb.Fatalf("no %q within %v; got %q", want, wait, got)
	return nil
}

// during returns every message conn receives for d.
func during(tb testing.TB, conn *net.UnixConn, d time.Duration) []string {
	tb.Helper()
	var got []string
	for end := time.Now().Add(d); time.Now().Before(end); {
		if m := receive(tb, conn, time.Until(end)); m != "" {
			got = append(got, m)
		}
	}
	return got
}

func containing(ms []string, s string) int {
	n := 0
	for _, m := range ms {
		if strings.Contains(m, s) {
			n++
		}
	}
	return n
}

// TestSupervisor walks a live monitor's start and a stalled capture,
// against a real notification socket with a 200 ms watchdog (a 50 ms
// tick).
func TestSupervisor(t *testing.T) {
	conn := listen(t, "notify")
	t.Setenv("WATCHDOG_USEC", "200000")
	t.Setenv("WATCHDOG_PID", "")
	var away, connected, feeding, calibrated atomic.Bool
	away.Store(true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sv := Supervise(ctx, FromEnv(), Checks{Connected: connected.Load, SourceAway: away.Load}, nil)
	defer sv.Stop()
	fed := make(chan struct{})
	go func() { // the frame loop
		defer close(fed)
		for ctx.Err() == nil {
			if feeding.Load() {
				sv.Frame(calibrated.Load())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	defer func() { cancel(); <-fed }()

	const wait = 2 * time.Second
	// The camera is not there yet: starting, alive, not ready.
	got := until(t, conn, "STATUS=waiting for the camera", wait)
	got = append(got, until(t, conn, "EXTEND_TIMEOUT_USEC=200000", wait)...)
	// Frames flow, but the marks are not found yet.
	away.Store(false)
	feeding.Store(true)
	got = append(got, until(t, conn, "STATUS=calibrating", wait)...)
	got = append(got, until(t, conn, "EXTEND_TIMEOUT_USEC=200000", wait)...)
	// Calibrated, the broker still away.
	calibrated.Store(true)
	got = append(got, until(t, conn, "STATUS=waiting for the broker", wait)...)
	if n := containing(got, "READY=1"); n != 0 {
		t.Fatalf("READY=1 sent before calibrated and connected: %q", got)
	}
	connected.Store(true)
	until(t, conn, "READY=1\nSTATUS=watching the table", wait)
	until(t, conn, "WATCHDOG=1", wait)

	// The capture stalls: the watchdog is left to run out.
	feeding.Store(false)
	until(t, conn, "STATUS=no frame taken from the camera for", wait)
	if ms := during(t, conn, 300*time.Millisecond); containing(ms, "WATCHDOG=1") != 0 {
		t.Errorf("a stalled capture fed the watchdog: %q", ms)
	}
	// The capture knows the camera is gone and reconnects: alive.
	away.Store(true)
	until(t, conn, "STATUS=the camera is away", wait)
	until(t, conn, "WATCHDOG=1", wait)

	sv.Stop()
	until(t, conn, "STOPPING=1", wait)
	if ms := during(t, conn, 200*time.Millisecond); len(ms) != 0 {
		t.Errorf("messages after Stop: %q", ms)
	}
}

// TestSupervisorNoWatchdog: without WatchdogSec, readiness is still
// reported and no watchdog message is sent.
func TestSupervisorNoWatchdog(t *testing.T) {
	conn := listen(t, "notify")
	t.Setenv("WATCHDOG_USEC", "")
	sv := Supervise(context.Background(), FromEnv(), Checks{}, nil)
	sv.Frame(true)
	got := until(t, conn, "READY=1", 3*time.Second)
	sv.Stop()
	got = append(got, until(t, conn, "STOPPING=1", time.Second)...)
	if n := containing(got, "WATCHDOG=1") + containing(got, "EXTEND_TIMEOUT_USEC"); n != 0 {
		t.Errorf("watchdog messages without a watchdog: %q", got)
	}
}
