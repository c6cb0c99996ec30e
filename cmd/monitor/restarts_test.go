package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"bjmonitor/sdnotify"
)

func TestRestartSchedule(t *testing.T) {
	tests := []struct {
		earlier int
		want    time.Duration
	}{
		{0, 0},
		{1, 0},
		{2, 5 * time.Second},
		{3, 10 * time.Second},
		{5, 40 * time.Second},
		{8, 5 * time.Minute}, // 320 s, capped
		{1000, 5 * time.Minute},
	}
	for _, tt := range tests {
		if got := restartSchedule.Delay(tt.earlier); got != tt.want {
			t.Errorf("restartSchedule.Delay(%d) = %v, want %v", tt.earlier, got, tt.want)
		}
	}
}

func TestRecordStart(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	sec := func(d time.Duration) string { return strconv.FormatInt(now.Add(d).Unix(), 10) }
	tests := []struct {
		name, before string // "" : no file
		want         int
	}{
		{"no file", "", 0},
		{"two recent starts", sec(-10*time.Second) + "\n" + sec(-time.Minute) + "\n", 2},
		{"an old start forgotten", sec(-20*time.Minute) + "\n" + sec(-time.Minute) + "\n", 1},
		{"garbage and a future time skipped", "x\n\n" + sec(time.Hour) + "\n" + sec(-time.Second) + "\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), restartsFile)
			if tt.before != "" {
				if err := os.WriteFile(path, []byte(tt.before), 0o640); err != nil {
					t.Fatal(err)
				}
			}
			got, err := recordStart(path, now)
			if err != nil || got != tt.want {
				t.Fatalf("recordStart = %d, %v; want %d", got, err, tt.want)
			}
			// This start is kept for the next one.
			if again, err := recordStart(path, now.Add(time.Second)); err != nil || again != tt.want+1 {
				t.Errorf("the next recordStart = %d, %v; want %d", again, err, tt.want+1)
			}
		})
	}
}

// TestBackOffRestart checks that a monitor started often lately waits
// before starting (here until it is stopped), and one started rarely
// does not.
func TestBackOffRestart(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir := t.TempDir()
	ctx := context.Background()
	for i := range freeRestarts {
		start := time.Now()
		settled, err := backOffRestart(ctx, dir, sdnotify.FromEnv(), log)
		if err != nil || settled == nil || time.Since(start) > time.Second {
			t.Fatalf("start %d: backOffRestart = %v after %v; want no wait", i+1, err, time.Since(start))
		}
	}
	stopped, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := backOffRestart(stopped, dir, sdnotify.FromEnv(), log); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("start %d: backOffRestart = %v after %v; want it waiting until stopped", freeRestarts+1, err, time.Since(start))
	}
}

// TestBackOffConsole checks that the console backs off only where
// systemd gives it a state directory to keep its record in.
func TestBackOffConsole(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	t.Setenv("STATE_DIRECTORY", "")
	for range freeRestarts + 1 {
		if _, err := backOffConsole(context.Background(), sdnotify.FromEnv(), log); err != nil {
			t.Fatalf("without a state directory: %v, want no wait", err)
		}
	}
	dir := t.TempDir()
	t.Setenv("STATE_DIRECTORY", dir)
	for range freeRestarts {
		if _, err := backOffConsole(context.Background(), sdnotify.FromEnv(), log); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "console."+restartsFile)); err != nil {
		t.Fatalf("no record in the state directory: %v", err)
	}
	stopped, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := backOffConsole(stopped, sdnotify.FromEnv(), log); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a third quick start: %v, want it waiting until stopped", err)
	}
}
