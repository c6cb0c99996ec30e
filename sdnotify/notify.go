package sdnotify

import (
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// Notifier sends messages to systemd's notification socket. The zero
// Notifier, and a nil one, send nothing: the process is not run by
// systemd, or not as a Type=notify service.
type Notifier struct {
	socket string        // $NOTIFY_SOCKET; "" sends nothing
	wd     time.Duration // the watchdog's timeout; 0 when off
}

// FromEnv returns the Notifier systemd's environment describes:
// $NOTIFY_SOCKET, and $WATCHDOG_USEC when $WATCHDOG_PID is unset or this
// process (the variables may have been inherited from a parent).
func FromEnv() *Notifier {
	n := &Notifier{socket: os.Getenv("NOTIFY_SOCKET")}
	n.wd, _ = watchdogTimeout(os.Getenv("WATCHDOG_USEC"), os.Getenv("WATCHDOG_PID"), os.Getpid())
	return n
}

// watchdogTimeout parses $WATCHDOG_USEC for the process pid. No
// $WATCHDOG_USEC, or a $WATCHDOG_PID of another process, is no watchdog and
// no error.
func watchdogTimeout(usec, wdPID string, pid int) (time.Duration, error) {
	if usec == "" {
		return 0, nil
	}
	if wdPID != "" {
		p, err := strconv.Atoi(wdPID)
		if err != nil {
			return 0, fmt.Errorf("sdnotify: WATCHDOG_PID=%q: %w", wdPID, err)
		}
		if p != pid {
			return 0, nil
		}
	}
	us, err := strconv.ParseInt(usec, 10, 64)
	if err != nil || us <= 0 || us > math.MaxInt64/int64(time.Microsecond) {
		return 0, fmt.Errorf("sdnotify: WATCHDOG_USEC=%q: want a positive number of microseconds, at most 292 years", usec)
	}
	return time.Duration(us) * time.Microsecond, nil
}

// Enabled reports whether messages go anywhere.
func (n *Notifier) Enabled() bool { return n != nil && n.socket != "" }

// WatchdogTimeout is how long systemd waits for WATCHDOG=1 before it
// restarts the service (WatchdogSec=); 0 when no watchdog is set.
func (n *Notifier) WatchdogTimeout() time.Duration {
	if !n.Enabled() {
		return 0
	}
	return n.wd
}

// Send sends the state lines ("READY=1", "STATUS=…") as one message. A
// line may not contain a newline.
func (n *Notifier) Send(state ...string) error {
	if !n.Enabled() {
		return nil
	}
	for _, s := range state {
		if strings.ContainsRune(s, '\n') || !strings.Contains(s, "=") {
			return fmt.Errorf("sdnotify: bad state %q: want one KEY=VALUE line", s)
		}
	}
	if len(state) == 0 {
		return errors.New("sdnotify: nothing to send")
	}
	// Go names a Linux abstract socket with a leading @, as systemd does.
	addr := &net.UnixAddr{Name: n.socket, Net: "unixgram"}
	conn, err := net.DialUnix("unixgram", nil, addr)
	if err != nil {
		return fmt.Errorf("sdnotify: %w", err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(strings.Join(state, "\n") + "\n")); err != nil {
		return fmt.Errorf("sdnotify: %w", err)
	}
	return nil
}

// Ready tells systemd that the service has started: a Type=notify unit
// is active from then on, and units ordered after it start.
func (n *Notifier) Ready(status string) error {
	return n.Send("READY=1", "STATUS="+oneLine(status))
}

// Watchdog tells systemd that the service is alive.
func (n *Notifier) Watchdog() error { return n.Send("WATCHDOG=1") }

// Status sets the line systemctl status shows.
func (n *Notifier) Status(status string) error { return n.Send("STATUS=" + oneLine(status)) }

// Stopping tells systemd that the service is stopping on its own accord
// or on a signal, so that a stop is not mistaken for a hang.
func (n *Notifier) Stopping() error { return n.Send("STOPPING=1", "STATUS=stopping") }

// extendStart asks systemd to wait at least d more for READY=1
// (EXTEND_TIMEOUT_USEC): a service that is still starting, and alive.
func (n *Notifier) extendStart(d time.Duration) error {
	return n.Send("EXTEND_TIMEOUT_USEC=" + strconv.FormatInt(d.Microseconds(), 10))
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }
