//go:build !matprofile

package classify

// checkMatLeaks needs gocv's Mat profile, which only -tags matprofile
// builds keep.
func checkMatLeaks() error { return nil }
