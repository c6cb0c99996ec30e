package enroll

import (
	"testing"

	"gocv.io/x/gocv"
)

func TestMedian(t *testing.T) {
	var frames []gocv.Mat
	defer func() {
		for _, f := range frames {
			f.Close()
		}
	}()
	// Three frames of one grey; a fourth and a fifth with a bright and a
	// dark blotch (a hand passing, noise): the median is the grey.
	for i, v := range []float64{100, 100, 100, 250, 0} {
		f := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(100, 100, 100, 0), 8, 8, gocv.MatTypeCV8UC3)
		if i >= 3 {
			f.SetUCharAt(2, 5, uint8(v))
		}
		frames = append(frames, f)
	}
	m, err := Median(frames)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if got, want := m.GetUCharAt(2, 5), uint8(100); got != want {
		t.Errorf("median at the blotch = %d, want %d", got, want)
	}
	for _, tc := range []struct {
		name   string
		frames []gocv.Mat
	}{
		{"none", nil},
		{"too many", append(frames, frames...)},
	} {
		if m, err := Median(tc.frames); err == nil {
			m.Close()
			t.Errorf("Median(%s) = nil error, want one", tc.name)
		}
	}
	small := gocv.NewMatWithSize(4, 4, gocv.MatTypeCV8UC3)
	defer small.Close()
	if m, err := Median([]gocv.Mat{frames[0], small}); err == nil {
		m.Close()
		t.Error("Median of two sizes = nil error, want one")
	}
}
