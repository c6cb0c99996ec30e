package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bjmonitor/internal/mqtttest"
)

// TestLiveNotifiesSystemd runs monitor live as systemd runs it
// (Type=notify, WatchdogSec=2): the sample video as the camera, a
// notification socket, the embedded broker. It must say READY=1 once
// calibrated and connected, feed the watchdog while frames flow, and say
// STOPPING=1 when stopped.
func TestLiveNotifiesSystemd(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: socket, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	env, _ := liveEnv(t, abs(t, sample("freebet-1080p", "mp4")), "")
	setenv(t, env)
	t.Setenv("MONITOR_MQTT_EMBEDDED_ADDR", fmt.Sprintf("127.0.0.1:%d", mqtttest.FreePort(t)))
	t.Setenv("MONITOR_LIVE_REALTIME", "true") // a camera's pace
	t.Setenv("NOTIFY_SOCKET", socket)
	t.Setenv("WATCHDOG_USEC", "2000000")
	t.Setenv("WATCHDOG_PID", "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := runAsync(ctx, io.Discard, io.Discard, "live", "--config", abs(t, sample("freebet-1080p", "yaml")))

	var got []string
	next := func(want string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			_ = conn.SetReadDeadline(deadline)
			buf := make([]byte, 4096)
			n, err := conn.Read(buf)
			if err != nil {
				t.Fatalf("no %q from monitor live: %v; got %q", want, err, got)
			}
			got = append(got, string(buf[:n]))
			if strings.Contains(string(buf[:n]), want) {
				return
			}
		}
	}
	next("READY=1")
	next("WATCHDOG=1")
	cancel()
	next("STOPPING=1")
	if err := <-done; err != nil {
		t.Fatalf("live: %v", err)
	}
	t.Logf("notifications: %q", got)
}

// TestConsoleNotifiesSystemd: monitor console, run as its unit runs it
// (Type=notify), says READY=1 once it serves its page.
func TestConsoleNotifiesSystemd(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: socket, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	b := mqtttest.NewMosquitto(t, "")
	b.Start()
	// Set after Mosquitto starts: it would notify the socket itself.
	t.Setenv("NOTIFY_SOCKET", socket)
	u := startConsole(t, b.URL(), "bjmonitor")
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 4096)
	n, err := conn.Read(buf)
	if got := string(buf[:n]); err != nil || !strings.Contains(got, "READY=1") || !strings.Contains(got, "STATUS=serving") {
		t.Fatalf("monitor console serving at %s sent %q (%v), want READY=1", u, buf[:n], err)
	}
}
