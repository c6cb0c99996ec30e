//go:build matprofile

// Package matleak lets a test binary fail when gocv Mats were left open.
// It is live only with -tags matprofile, which makes gocv count every Mat
// (scripts/test builds with it); without the tag Check always passes.
//
//	func TestMain(m *testing.M) { os.Exit(matleak.Run(m)) }
package matleak

import (
	"bytes"
	"fmt"

	"gocv.io/x/gocv"
)

// Check reports the Mats still open, with where each was made.
func Check() error {
	if n := gocv.MatProfile.Count(); n != 0 {
		var b bytes.Buffer
		gocv.MatProfile.WriteTo(&b, 1)
		return fmt.Errorf("%d Mats not closed:\n%s", n, b.String())
	}
	return nil
}
