//go:build matprofile

package vision_test

import (
	"bytes"
	"fmt"

	"gocv.io/x/gocv"
)

func checkMatLeaks() error {
	if n := gocv.MatProfile.Count(); n != 0 {
		var b bytes.Buffer
		gocv.MatProfile.WriteTo(&b, 1)
		return fmt.Errorf("%d Mats not closed:\n%s", n, b.String())
	}
	return nil
}
