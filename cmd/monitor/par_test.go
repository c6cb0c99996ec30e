package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"bjmonitor/internal/golden"
)

// checkGoldenJSONL is golden.Check for JSON lines whose numbers may differ
// in their last digits from one machine to another (OpenCV's DNN sums in
// an order that depends on the CPU's vector width): each line must hold
// the same JSON, with numbers within tol of the golden's, relative to
// the larger of 1 and the golden's magnitude.
func checkGoldenJSONL(t *testing.T, file, got string, tol float64) {
	t.Helper()
	if golden.Updating() {
		golden.Check(t, file, got)
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	gl, wl := strings.Split(strings.TrimSpace(got), "\n"), strings.Split(strings.TrimSpace(string(want)), "\n")
	if len(gl) != len(wl) {
		t.Fatalf("%d lines, %s has %d (run with -update after checking it):\n%s", len(gl), file, len(wl), got)
	}
	for i := range gl {
		var g, w any
		if err := json.Unmarshal([]byte(gl[i]), &g); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if err := json.Unmarshal([]byte(wl[i]), &w); err != nil {
			t.Fatalf("%s line %d: %v", file, i+1, err)
		}
		if path, ok := sameJSON(g, w, tol, ""); !ok {
			t.Errorf("line %d differs from %s at %s (run with -update after checking it):\ngot  %s\nwant %s", i+1, file, path, gl[i], wl[i])
		}
	}
}

// sameJSON compares two decoded JSON values, numbers within tol; it
// returns where they first differ.
func sameJSON(got, want any, tol float64, path string) (string, bool) {
	switch w := want.(type) {
	case float64:
		g, ok := got.(float64)
		return path, ok && math.Abs(g-w) <= tol*math.Max(1, math.Abs(w))
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return path, false
		}
		for i := range w {
			if p, ok := sameJSON(g[i], w[i], tol, fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
		return path, true
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return path, false
		}
		for k := range w {
			if p, ok := sameJSON(g[k], w[k], tol, path+"."+k); !ok {
				return p, false
			}
		}
		return path, true
	default:
		return path, got == want
	}
}

// run calls Main.Run as the command line would and returns its output.
// newMain, when set, adjusts each Main that run makes: a test's reader.
var newMain func(*Main)

func run(tb testing.TB, args ...string) (string, string, error) {
	tb.Helper()
	var out, errOut bytes.Buffer
	m := &Main{Stdout: &out, Stderr: &errOut}
	if newMain != nil {
		newMain(m)
	}
	err := m.Run(context.Background(), args)
	return out.String(), errOut.String(), err
}

func TestParGolden(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"par-builtin.json", []string{"par", "--json", "--rounds", "20000"}},
		{"par-builtin-8decks.txt", []string{"par", "--decks", "8", "--rounds", "20000", "--seed", "2"}},
		{"par-example-config.json", []string{"par", "--json", "--rounds", "20000", "--config", filepath.Join("..", "..", "config.example.yaml")}},
		{"par-classic-table.txt", []string{"par", "--rounds", "1000", "--config", filepath.Join("testdata", "classic-table.yaml")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, stderr, err := run(t, tt.args...)
			if err != nil {
				t.Fatalf("monitor %v: %v\n%s", tt.args, err, stderr)
			}
			golden.Check(t, filepath.Join("testdata", tt.name), got)
		})
	}
}

func TestParUsage(t *testing.T) {
	for _, args := range [][]string{
		{"par", "--bogus"},
		{"par", "extra"},
		{"frobnicate"},
		{},
	} {
		if _, _, err := run(t, args...); !errors.Is(err, errUsage) {
			t.Errorf("monitor %v = %v, want a usage error", args, err)
		}
	}
	_, _, err := run(t, "par", "--rounds", "0")
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Field != "--rounds" {
		t.Errorf("--rounds 0: %v, want a ConfigError on --rounds", err)
	}
	_, _, err = run(t, "par", "--decks", "9")
	if !errors.As(err, &ce) || ce.Field != "table.decks" {
		t.Errorf("--decks 9: %v, want a ConfigError on table.decks", err)
	}
}

func TestParCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	err := (&Main{Stdout: &out, Stderr: &errOut}).Run(ctx, []string{"par"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled par = %v, want context.Canceled", err)
	}
}

func TestSameJSON(t *testing.T) {
	for _, tc := range []struct {
		got, want string
		same      bool
	}{
		{`{"a":0.97525530102}`, `{"a":0.9752553010283612}`, true},
		{`{"a":0.9752}`, `{"a":0.9753}`, false},
		{`{"at":[504.1268193452,273.66785061]}`, `{"at":[504.12681934520833,273.6678506159932]}`, true},
		{`{"at":[504.13,273.66]}`, `{"at":[504.12681934520833,273.6678506159932]}`, false},
		{`{"card":"4D"}`, `{"card":"4H"}`, false},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`[1,2]`, `[1,2,3]`, false},
		{`{"a":null}`, `{"a":0}`, false},
	} {
		var g, w any
		if err := json.Unmarshal([]byte(tc.got), &g); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(tc.want), &w); err != nil {
			t.Fatal(err)
		}
		if _, same := sameJSON(g, w, 1e-6, ""); same != tc.same {
			t.Errorf("sameJSON(%s, %s) = %v, want %v", tc.got, tc.want, same, tc.same)
		}
	}
}
