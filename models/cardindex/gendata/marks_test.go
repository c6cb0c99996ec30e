package main

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"

	"bjmonitor/cards"
	"bjmonitor/testvideos/cardface"
)

// TestMarkTightAndPointClubs: share 0 leaves every design as it was,
// share 1 changes nearly all, and the same seed marks the same designs.
func TestMarkTightAndPointClubs(t *testing.T) {
	var fonts []*cardface.Font
	for name, src := range map[string][]byte{"Go-Bold": gobold.TTF, "Go-Regular": goregular.TTF} {
		f, err := cardface.ParseFont(name, src)
		if err != nil {
			t.Fatal(err)
		}
		fonts = append(fonts, f)
	}
	designs := func() []cardface.Style {
		r := rand.New(rand.NewPCG(9, 9))
		out := make([]cardface.Style, 12)
		for i := range out {
			st, err := cardface.NewStyle(r, fonts)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = st
		}
		return out
	}
	club := func(st cardface.Style) []byte {
		img, err := cardface.Draw(st, cards.MustParse("8C"), 150, 210)
		if err != nil {
			t.Fatal(err)
		}
		return img.Pix
	}
	for _, tc := range []struct {
		name    string
		mark    func([]cardface.Style, float64, uint64)
		changed func(a, b cardface.Style) bool
	}{
		{"tight", markTight, func(a, b cardface.Style) bool { return a.Extent != b.Extent }},
		{"pointclubs", markPointClubs, func(a, b cardface.Style) bool { return !bytes.Equal(club(a), club(b)) }},
	} {
		count := func(share float64, seed uint64) (int, []bool) {
			before, after := designs(), designs()
			tc.mark(after, share, seed)
			n, marks := 0, make([]bool, len(after))
			for i := range after {
				if marks[i] = tc.changed(before[i], after[i]); marks[i] {
					n++
				}
			}
			return n, marks
		}
		if n, _ := count(0, 1); n != 0 {
			t.Errorf("%s: share 0 changed %d designs, want none", tc.name, n)
		}
		if n, _ := count(1, 1); n < 10 {
			t.Errorf("%s: share 1 changed %d of 12 designs, want nearly all", tc.name, n)
		}
		_, a := count(0.5, 7)
		if _, b := count(0.5, 7); !equal(a, b) {
			t.Errorf("%s: the same seed marked other designs", tc.name)
		}
	}
}
