// Package golden compares what a test made with a golden file under its
// package's testdata/, and rewrites the file instead when the tests run
// with -update, for the change to be checked by eye and committed:
//
//	golden.Check(t, filepath.Join("testdata", "par-classic.golden"), got)
//
//	go test ./cmd/monitor/ -run TestPar -update
//
// It registers the -update flag, so a test binary that imports it must
// not register one of its own.
package golden

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Updating reports whether the tests run with -update: a test that
// compares with a golden file its own way (numbers within a tolerance)
// rewrites the file with Check then.
func Updating() bool { return *update }

// Check compares got with the golden file at path, rewriting the file
// first when the tests run with -update.
func Check(tb testing.TB, path, got string) {
	tb.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run with -update to create it)", err)
		return
	}
	if got != string(want) {
		tb.Errorf("got:\n%s\nwant (%s; run with -update after checking the difference):\n%s", got, path, want)
	}
}
