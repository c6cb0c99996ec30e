package vision

import (
	"image"
	"testing"
)

func TestStraightStretches(t *testing.T) {
	// The top edge of a row of two cards, the second lying a pixel higher,
	// with the notch of its rounded corner breaking the outline where its
	// hidden corner is; then the row's right, bottom and left edges. In
	// pixels, y down.
	row := []image.Point{
		{120, 0}, {119, 1}, {50, 1}, {48, 2}, {46, 1}, {0, 2},
		{0, 90}, {120, 90},
	}
	got := straightStretches(row, 3)
	want := [][2]point2{
		{{120, 0}, {0, 2}}, // the whole top edge, notch and step included
		{{0, 2}, {0, 90}},
		{{0, 90}, {120, 90}},
		{{120, 90}, {120, 0}},
	}
	if len(got) != len(want) {
		t.Fatalf("straightStretches = %v, want %v", got, want)
	}
	for i := range want {
		if got[i][0].sub(want[i][0]).len() > 0 || got[i][1].sub(want[i][1]).len() > 0 {
			t.Errorf("stretch %d = %v, want %v", i, got[i], want[i])
		}
	}
	// A corner is no stretch: the edges on either side stay apart.
	square := []image.Point{{0, 0}, {10, 0}, {10, 10}, {0, 10}}
	if got := straightStretches(square, 3); len(got) != 4 {
		t.Errorf("straightStretches(square) = %v, want its 4 edges", got)
	}
}
