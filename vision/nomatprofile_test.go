//go:build !matprofile

package vision_test

func checkMatLeaks() error { return nil }
