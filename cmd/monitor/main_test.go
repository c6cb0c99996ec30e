package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"bjmonitor/capture"
	"bjmonitor/evidence"
)

// TestHelp: every command prints its usage on stdout when asked for help
// and succeeds; a flag it does not know is an error, with the usage on
// stderr.
func TestHelp(t *testing.T) {
	for _, cmd := range []string{"", "live", "replay", "calibrate", "inspect", "par", "version", "read", "console"} {
		for _, flag := range []string{"-h", "--help", "--bogus"} {
			args := strings.Fields(cmd + " " + flag)
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				stdout, stderr, err := run(t, args...)
				usage, out := "usage: monitor "+cmd, stdout
				if cmd == "" {
					usage = "monitor live --config FILE" // the overview lists every command
				}
				want := 0
				if flag == "--bogus" {
					want, out = 2, stderr
				}
				if got := exitCode(err); got != want {
					t.Errorf("monitor %s: exit status %d (%v), want %d", strings.Join(args, " "), got, err, want)
				}
				if !strings.Contains(out, usage) {
					t.Errorf("monitor %s printed\nstdout: %q\nstderr: %q\nwant %q in the usage", strings.Join(args, " "), stdout, stderr, usage)
				}
				if cmd != "" && !strings.Contains(out, "--config") {
					t.Errorf("monitor %s: the usage %q lists no flags", strings.Join(args, " "), out)
				}
			})
		}
	}
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"success", nil, 0},
		{"usage", errUsage, 2},
		{"setting", fmt.Errorf("live: %w", &ConfigError{"live.fps", -5, "want 1 to 240"}), 2},
		{"capture's setting", fmt.Errorf("camera: %w", capture.Config{Source: "ftp://cam/x"}.Validate()), 2},
		{"evidence's setting", evidence.Config{}.Validate(), 2},
		{"interrupted", fmt.Errorf("replay: %w", context.Canceled), 130},
		{"failure", errors.New("the video ends early"), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exitCode(tt.err); got != tt.want {
				t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}

// TestUserField: a library's configuration error names the key the user
// writes in the YAML, not the library's Go field.
func TestUserField(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string // the field named; "" leaves the error as it is
	}{
		{"camera scheme", capture.Config{Source: "ftp://cam/x"}.Validate(), "live.source"},
		{"camera index", capture.Config{Source: "99999999999999999999"}.Validate(), "live.source"},
		{"evidence folder", evidence.Config{}.Validate(), "evidence.dir"},
		{"evidence age", evidence.Config{Dir: "x", MaxAge: -1}.Validate(), "evidence.max_age"},
		{"not a user's", capture.Config{Source: "0", Timeout: -1}.Validate(), ""},
		{"no setting", errors.New("no camera"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := userField(tt.err)
			var ce *ConfigError
			switch {
			case tt.want == "" && got != tt.err:
				t.Errorf("userField(%v) = %v, want it unchanged", tt.err, got)
			case tt.want != "" && (!errors.As(got, &ce) || ce.Field != tt.want):
				t.Errorf("userField(%v) = %v, want a ConfigError on %s", tt.err, got, tt.want)
			}
		})
	}
}
