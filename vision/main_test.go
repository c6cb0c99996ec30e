package vision_test

import (
	"fmt"
	"os"
	"testing"
)

// TestMain fails the run when a test leaked a Mat; the check is live only
// with -tags matprofile (see matprofile_test.go), which the test command
// uses.
func TestMain(m *testing.M) {
	code := m.Run()
	if err := checkMatLeaks(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}
