package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// checkGolden compares got with the golden file, rewriting it first when
// the tests run with -update.
func checkGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update after checking it):\n%s", golden, got)
	}
}

// run calls Main.Run as the command line would and returns its output.
func run(tb testing.TB, args ...string) (string, string, error) {
	tb.Helper()
	var out, errOut bytes.Buffer
	m := &Main{Stdout: &out, Stderr: &errOut}
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
			checkGolden(t, filepath.Join("testdata", tt.name), got)
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
