package driver

import (
	"slices"
	"testing"
)

func TestSampler(t *testing.T) {
	for _, tc := range []struct {
		name        string
		fps, target float64
		frames      []int
		want        []int
	}{
		{"every frame when 0", 25, 0, []int{0, 1, 2, 3}, []int{0, 1, 2, 3}},
		{"every frame when slower than the target", 10, 12.5, []int{0, 1, 2}, []int{0, 1, 2}},
		{"one in two at 25", 25, 12.5, []int{0, 1, 2, 3, 4, 5}, []int{0, 2, 4}},
		{"one in two at 30", 30, 12.5, []int{0, 1, 2, 3, 4}, []int{0, 2, 4}},
		{"one in five at 60", 60, 12.5, []int{0, 1, 2, 3, 4, 5, 6, 9, 10}, []int{0, 5, 10}},
		{"a dropped frame moves the pick", 25, 12.5, []int{0, 1, 3, 4, 5, 6}, []int{0, 3, 5}},
		{"a count that restarts", 25, 12.5, []int{0, 1, 2, 3, 4, 0, 1, 2}, []int{0, 2, 4, 0, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSampler(tc.fps, tc.target)
			var got []int
			for _, i := range tc.frames {
				if s.Take(i) {
					got = append(got, i)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("read %v, want %v", got, tc.want)
			}
		})
	}
}
