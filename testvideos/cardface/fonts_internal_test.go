package cardface

import (
	"image"
	"math/rand/v2"
	"os"
	"testing"
)

func TestSuitsLookRight(t *testing.T) {
	// Pips of another design than suitsLookRight's own stand in for a
	// font's glyphs, at a glyph's size and aspect.
	ps := newPipSet(rand.New(rand.NewPCG(7, 7)))
	var drawn [4]*image.Alpha
	for s := range drawn {
		drawn[s] = ps.draw(s, 120, 140)
	}
	swap := func(i, j int) [4]*image.Alpha {
		g := drawn
		g[i], g[j] = g[j], g[i]
		return g
	}
	for _, tc := range []struct {
		name   string
		glyphs [4]*image.Alpha
		want   bool
	}{
		{"each suit its own", drawn, true},
		{"spade and club swapped", swap(0, 3), false},
		{"heart and diamond swapped", swap(1, 2), false},
		{"a suit missing", [4]*image.Alpha{drawn[0], drawn[1], nil, drawn[3]}, false},
		{"a blank glyph", [4]*image.Alpha{drawn[0], image.NewAlpha(image.Rect(0, 0, 10, 10)), drawn[2], drawn[3]}, false},
	} {
		if got := suitsLookRight(tc.glyphs); got != tc.want {
			t.Errorf("%s: suitsLookRight = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestFontWithSwappedSuits reads Debian's FreeSerifBold, whose U+2660
// (spade) draws a club and U+2663 (club) a spade, next to FreeSerif,
// which draws both right.
func TestFontWithSwappedSuits(t *testing.T) {
	const dir = "/usr/share/fonts/truetype/freefont/"
	for _, tc := range []struct {
		file  string
		suits bool
	}{{"FreeSerif.ttf", true}, {"FreeSerifBold.ttf", false}} {
		src, err := os.ReadFile(dir + tc.file)
		if err != nil {
			t.Skipf("%v (Debian's fonts-freefont-ttf, scripts/setup-fonts)", err)
		}
		f, err := ParseFont(tc.file, src)
		if err != nil {
			t.Fatal(err)
		}
		if f.Suits != tc.suits {
			t.Errorf("%s: Suits = %v, want %v", tc.file, f.Suits, tc.suits)
		}
	}
}
