package enroll

import (
	"errors"
	"fmt"
	"slices"

	"gocv.io/x/gocv"
)

// MaxMedianFrames bounds the frames Median takes: a median of 9 frames
// already removes sensor noise and a hand passing through, and 9 frames
// of 4K stay under 250 MB.
const MaxMedianFrames = 9

// Median returns the per-pixel median of frames (1 to MaxMedianFrames,
// all 8-bit BGR of one size): a still of a scene that held still while
// they were taken, without the sensor's noise. The caller closes the
// result; the frames stay the caller's.
func Median(frames []gocv.Mat) (gocv.Mat, error) {
	if len(frames) == 0 || len(frames) > MaxMedianFrames {
		return gocv.Mat{}, fmt.Errorf("enroll: median of %d frames: want 1 to %d", len(frames), MaxMedianFrames)
	}
	first := frames[0]
	data := make([][]byte, len(frames))
	for i, f := range frames {
		if f.Empty() || f.Type() != gocv.MatTypeCV8UC3 || f.Cols() != first.Cols() || f.Rows() != first.Rows() || !f.IsContinuous() {
			return gocv.Mat{}, errors.New("enroll: median: frames must be whole 8-bit BGR pictures of one size")
		}
		b, err := f.DataPtrUint8()
		if err != nil {
			return gocv.Mat{}, fmt.Errorf("enroll: median: %w", err)
		}
		data[i] = b
	}
	out := gocv.NewMatWithSize(first.Rows(), first.Cols(), gocv.MatTypeCV8UC3)
	dst, err := out.DataPtrUint8()
	if err != nil {
		out.Close()
		return gocv.Mat{}, fmt.Errorf("enroll: median: %w", err)
	}
	v := make([]byte, len(frames))
	for i := range dst {
		for k := range data {
			v[k] = data[k][i]
		}
		slices.Sort(v)
		dst[i] = v[len(v)/2]
	}
	return out, nil
}
