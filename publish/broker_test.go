package publish

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const mosquittoBin = "/usr/sbin/mosquitto"

// broker is a real Mosquitto on a loopback port, for tests.
type broker struct {
	tb   testing.TB
	port int
	conf string
	cmd  *exec.Cmd
	log  *os.File
}

// freePort asks the kernel for a free loopback port.
func freePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// newBroker writes a config (listener on port, plus extra lines) into a
// temporary directory; call start to run it. The test is skipped when
// Mosquitto is not installed.
func newBroker(tb testing.TB, port int, extra string) *broker {
	tb.Helper()
	if _, err := os.Stat(mosquittoBin); err != nil {
		tb.Skipf("mosquitto not installed at %s (apt-get install mosquitto): %v", mosquittoBin, err)
	}
	dir := tb.TempDir()
	conf := filepath.Join(dir, "mosquitto.conf")
	text := fmt.Sprintf("listener %d 127.0.0.1\n", port)
	if !strings.Contains(extra, "allow_anonymous") {
		text += "allow_anonymous true\n"
	}
	if !strings.Contains(extra, "persistence ") {
		text += "persistence false\n"
	}
	if os.Geteuid() == 0 {
		// Otherwise Mosquitto drops to user "mosquitto", which cannot read
		// files in the test's private temporary directory.
		text += "user root\n"
	}
	text += extra
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		tb.Fatal(err)
	}
	log, err := os.Create(filepath.Join(dir, "mosquitto.log"))
	if err != nil {
		tb.Fatal(err)
	}
	b := &broker{tb: tb, port: port, conf: conf, log: log}
	tb.Cleanup(func() {
		b.stop()
		log.Close()
	})
	return b
}

func (b *broker) url() string { return fmt.Sprintf("tcp://127.0.0.1:%d", b.port) }

// start runs Mosquitto and waits until it accepts connections.
func (b *broker) start() {
	b.tb.Helper()
	cmd := exec.Command(mosquittoBin, "-c", b.conf)
	cmd.Stdout, cmd.Stderr = b.log, b.log
	if err := cmd.Start(); err != nil {
		b.tb.Fatalf("start mosquitto: %v", err)
	}
	b.cmd = cmd
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", b.port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	logText, _ := os.ReadFile(b.log.Name())
	b.tb.Fatalf("mosquitto did not listen on %d within 10 s; log:\n%s", b.port, logText)
}

// stop ends Mosquitto with SIGTERM (so a persistent broker saves its
// sessions) and waits for it; it is a no-op when not running.
func (b *broker) stop() {
	if b.cmd == nil {
		return
	}
	b.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { b.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		b.cmd.Process.Kill()
		<-done
	}
	b.cmd = nil
}
