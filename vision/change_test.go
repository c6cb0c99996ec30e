package vision

import (
	"image"
	"testing"
)

// TestWatch follows a 20×10 footprint through a card landing, a hand
// moving through, and noise.
func TestWatch(t *testing.T) {
	const cols, rows = 20, 10
	felt := func() []uint8 {
		img := make([]uint8, cols*rows)
		for i := range img {
			img[i] = 60
		}
		return img
	}
	fill := func(img []uint8, r image.Rectangle, v uint8) []uint8 {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				img[y*cols+x] = v
			}
		}
		return img
	}
	card := image.Rect(2, 2, 6, 8)
	type step struct {
		img           []uint8
		fresh, moving bool
	}
	for _, c := range []struct {
		name  string
		steps []step
	}{
		{"still felt", []step{{felt(), false, false}, {felt(), false, false}}},
		{"noise under the level", []step{{felt(), false, false}, {fill(felt(), image.Rect(0, 0, 20, 5), 65), false, false}}},
		{"a card lands and settles", []step{
			{felt(), false, false},
			{fill(felt(), card, 200), false, true},
			{fill(felt(), card, 200), false, true},
			{fill(felt(), card, 200), true, false},
		}},
		{"a hand passes with a still inside", []step{
			{felt(), false, false},
			{fill(fill(felt(), image.Rect(8, 0, 14, 10), 120), image.Rect(9, 0, 13, 10), 100), false, true},
			// The hand's inside keeps its grey; only its edges move.
			{fill(fill(felt(), image.Rect(9, 0, 15, 10), 120), image.Rect(9, 0, 13, 10), 100), false, true},
			{fill(fill(felt(), image.Rect(9, 0, 16, 10), 120), image.Rect(9, 0, 13, 10), 100), false, true},
			{felt(), false, true},
			{felt(), false, true},
			{felt(), false, false},
		}},
		{"a card lands beside a moving hand", []step{
			{felt(), false, false},
			{fill(fill(felt(), card, 200), image.Rect(12, 0, 16, 10), 120), false, true},
			{fill(fill(felt(), card, 200), image.Rect(13, 0, 17, 10), 120), false, true},
			{fill(fill(felt(), card, 200), image.Rect(14, 0, 18, 10), 120), true, true},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWatch(image.Rect(0, 0, cols, rows))
			var st stillness
			for i, s := range c.steps {
				st.update(s.img, 8)
				w.update(s.img, st.still, cols, 8, 2)
				if i == 0 {
					w.read(true) // the first frame is always read
					continue
				}
				if w.fresh != s.fresh || w.moving != s.moving {
					t.Errorf("step %d: fresh %v, moving %v; want %v, %v", i, w.fresh, w.moving, s.fresh, s.moving)
				}
			}
		})
	}
}
