package matleak

import (
	"fmt"
	"os"
	"testing"
)

// Run runs the tests, then fails the run if any Mat was left open.
func Run(m *testing.M) int {
	code := m.Run()
	if err := Check(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	return code
}
