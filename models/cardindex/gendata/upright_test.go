package main

import (
	"math/rand/v2"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/testvideos/cardface"
)

func TestMarkUpright(t *testing.T) {
	count := func(share float64, seed uint64) (int, []bool) {
		sts := make([]cardface.Style, 200)
		markUpright(sts, share, seed)
		n, marks := 0, make([]bool, len(sts))
		for i, st := range sts {
			marks[i] = st.UprightSecond
			if st.UprightSecond {
				n++
			}
		}
		return n, marks
	}
	if n, _ := count(0, 1); n != 0 {
		t.Errorf("share 0 marked %d designs, want none", n)
	}
	if n, _ := count(1, 1); n != 200 {
		t.Errorf("share 1 marked %d of 200 designs, want all", n)
	}
	n, a := count(0.25, 7)
	if n < 30 || n > 70 {
		t.Errorf("share 0.25 marked %d of 200 designs, want about 50", n)
	}
	if _, b := count(0.25, 7); !equal(a, b) {
		t.Error("the same seed marked other designs")
	}
}

func equal(a, b []bool) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// TestIndexCorner: a 6♦ or 9♦ of a design with its second index upright
// is cut at its first corner only; every other card at either; and the
// draws that follow are the same whatever the design.
func TestIndexCorner(t *testing.T) {
	plain, upright := &cardface.Style{}, &cardface.Style{UprightSecond: true}
	for _, tc := range []struct {
		st      *cardface.Style
		card    string
		onlyTop bool
	}{
		{upright, "6D", true},
		{upright, "9D", true},
		{upright, "9H", false},
		{upright, "7H", false},
		{plain, "6D", false},
		{nil, "9D", false},
	} {
		c := cards.MustParse(tc.card)
		r, ref := rand.New(rand.NewPCG(3, 4)), rand.New(rand.NewPCG(3, 4))
		seen := map[corner]int{}
		for range 100 {
			seen[indexCorner(r, tc.st, c)]++
			indexCorner(ref, nil, c)
		}
		if r.Uint64() != ref.Uint64() {
			t.Errorf("%s: the draws after differ from a plain design's", tc.card)
		}
		if got := seen[cornerBR] == 0; got != tc.onlyTop || seen[cornerTL] == 0 {
			t.Errorf("%s (upright %v): cut %d times top left, %d bottom right", tc.card, tc.st != nil && tc.st.UprightSecond, seen[cornerTL], seen[cornerBR])
		}
	}
}
