package pips

import (
	"os"
	"testing"

	"bjmonitor/internal/matleak"
)

// TestMain fails the run when a test leaked a Mat; the check is live with
// -tags matprofile, which scripts/test uses.
func TestMain(m *testing.M) { os.Exit(matleak.Run(m)) }
