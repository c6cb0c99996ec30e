package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"bjmonitor/internal/backoff"
	"bjmonitor/sdnotify"
)

// restartsFile, in mqtt.outbox, holds the times (Unix seconds) of the
// live monitor's recent starts that did not go on to run for a while.
const restartsFile = "restarts"

// The restart backoff. systemd 252 (Debian 12) restarts a service after
// a fixed RestartSec; a monitor that keeps dying at start (a broken
// camera driver, a full disk) would then restart every few seconds for
// ever. So the monitor itself waits before starting when it has started
// often lately: once a run lasts settledRun, its starts are forgotten.
const (
	settledRun    = time.Minute
	restartWindow = 15 * time.Minute
	freeRestarts  = 2 // starts in the window before the first wait
)

// restartSchedule is the wait before a start after so many earlier starts
// in restartWindow: none for the first freeRestarts, then 5 s doubling up
// to 5 min.
var restartSchedule = backoff.Schedule{0, 0, 5 * time.Second, 10 * time.Second, 20 * time.Second,
	40 * time.Second, 80 * time.Second, 160 * time.Second, 5 * time.Minute}

// recordStart adds now to the starts kept in path and returns how many
// earlier starts lie within restartWindow. A missing file is no earlier
// start; lines that are not times are skipped.
func recordStart(path string, now time.Time) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	var kept []string
	for _, line := range strings.Split(string(b), "\n") {
		sec, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
		if err != nil {
			continue
		}
		if at := time.Unix(sec, 0); now.Sub(at) < restartWindow && !at.After(now) {
			kept = append(kept, strconv.FormatInt(sec, 10))
		}
	}
	earlier := len(kept)
	kept = append(kept, strconv.FormatInt(now.Unix(), 10))
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strings.Join(kept, "\n")+"\n"), 0o640); err != nil {
		return 0, err
	}
	return earlier, os.Rename(tmp, path)
}

// backOffRestart records this start in dir and, after too many starts
// lately, waits before going on, telling systemd why (and that the start
// takes that much longer). It returns early when ctx ends. forget, called
// once the monitor is up, clears the record after settledRun.
func backOffRestart(ctx context.Context, dir string, n *sdnotify.Notifier, log *slog.Logger) (forget func(), err error) {
	return backOff(ctx, filepath.Join(dir, restartsFile), n, log)
}

// backOffConsole is backOffRestart for the console, whose record is kept
// in the service's state directory ($STATE_DIRECTORY, which systemd sets
// from the unit's StateDirectory=): run by hand, nothing restarts it, and
// it does not back off.
func backOffConsole(ctx context.Context, n *sdnotify.Notifier, log *slog.Logger) (forget func(), err error) {
	dir, _, _ := strings.Cut(os.Getenv("STATE_DIRECTORY"), ":")
	if dir == "" {
		return func() {}, nil
	}
	return backOff(ctx, filepath.Join(dir, "console."+restartsFile), n, log)
}

// backOff is backOffRestart with the record kept in path.
func backOff(ctx context.Context, path string, n *sdnotify.Notifier, log *slog.Logger) (forget func(), err error) {
	earlier, err := recordStart(path, time.Now())
	if err != nil {
		// The backoff is a courtesy: a monitor that cannot keep its
		// record still starts.
		log.Warn("restart backoff: cannot keep the record of starts", "err", err)
	}
	if d := restartSchedule.Delay(earlier); d > 0 {
		status := fmt.Sprintf("started %d times in %v without running %v: waiting %v before starting", earlier+1, restartWindow, settledRun, d)
		log.Warn("restart backoff: " + status)
		_ = n.Send("EXTEND_TIMEOUT_USEC="+strconv.FormatInt((d+time.Minute).Microseconds(), 10), "STATUS="+status)
		if !backoff.Sleep(ctx, d) {
			return func() {}, ctx.Err()
		}
	}
	return func() {
		t := time.AfterFunc(settledRun, func() {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				log.Warn("restart backoff: cannot clear the record of starts", "err", err)
			}
		})
		context.AfterFunc(ctx, func() { t.Stop() })
	}, nil
}
