package vision

import (
	"image"
	"slices"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/cards"
	"bjmonitor/vision/classify"
)

// TestTurnGlyphs draws glyphs on an index crop's paper, with felt along
// its top edge: each glyph turns half round in its own box, ink whose
// boxes overlap as one, and nothing else moves.
func TestTurnGlyphs(t *testing.T) {
	src := gocv.NewMatWithSize(classify.CropRows, classify.CropCols, gocv.MatTypeCV8UC3)
	defer src.Close()
	src.SetTo(gocv.NewScalar(225, 230, 232, 0))
	fill := func(r image.Rectangle, b, g, rd float64) {
		roi := src.Region(r)
		roi.SetTo(gocv.NewScalar(b, g, rd, 0))
		roi.Close()
	}
	fill(image.Rect(0, 0, classify.CropCols, 2), 40, 110, 30) // felt beyond the corner
	// A rank, and a dot whose box lies inside its box: one box, 4..12 × 4..14.
	fill(image.Rect(4, 4, 6, 14), 20, 20, 20)
	fill(image.Rect(4, 12, 12, 14), 20, 20, 20)
	fill(image.Rect(9, 6, 11, 8), 20, 20, 20)
	// A red pip below, 4..10 × 17..22, heavier at its top.
	fill(image.Rect(4, 17, 10, 19), 30, 30, 200)
	fill(image.Rect(6, 19, 8, 22), 30, 30, 200)
	boxes := []image.Rectangle{image.Rect(4, 4, 12, 14), image.Rect(4, 17, 10, 22)}

	dst := gocv.NewMat()
	defer dst.Close()
	if !turnGlyphs(src, &dst) {
		t.Fatal("found no glyph")
	}
	in := func(p image.Point) (image.Rectangle, bool) {
		for _, b := range boxes {
			if p.In(b) {
				return b, true
			}
		}
		return image.Rectangle{}, false
	}
	bad := 0
	for y := range classify.CropRows {
		for x := range classify.CropCols {
			want := image.Pt(x, y)
			if b, ok := in(want); ok {
				want = image.Pt(b.Min.X+b.Max.X-1-x, b.Min.Y+b.Max.Y-1-y)
			}
			if got, w := dst.GetVecbAt(y, x), src.GetVecbAt(want.Y, want.X); got[0] != w[0] || got[1] != w[1] || got[2] != w[2] {
				if bad++; bad <= 5 {
					t.Errorf("pixel (%d, %d) is %v, want %v (from (%d, %d))", x, y, got, w, want.X, want.Y)
				}
			}
		}
	}
	if got := glyphBoxes(src); len(got) != len(boxes) {
		t.Errorf("glyph boxes %v, want %v", got, boxes)
	}

	for _, bad := range []struct {
		name string
		fill gocv.Scalar
		typ  gocv.MatType
	}{
		{"blank paper", gocv.NewScalar(225, 230, 232, 0), gocv.MatTypeCV8UC3},
		{"felt", gocv.NewScalar(40, 110, 30, 0), gocv.MatTypeCV8UC3},
		{"a grey crop", gocv.NewScalar(200, 0, 0, 0), gocv.MatTypeCV8U},
	} {
		m := gocv.NewMatWithSize(classify.CropRows, classify.CropCols, bad.typ)
		m.SetTo(bad.fill)
		if turnGlyphs(m, &dst) {
			t.Errorf("%s: found a glyph", bad.name)
		}
		m.Close()
	}
	empty := gocv.NewMat()
	defer empty.Close()
	if turnGlyphs(empty, &dst) {
		t.Error("an empty crop: found a glyph")
	}
}

// TestUpsideDown: which corner of a card read as two cards shows its
// index upside down. The cases are readings of proc:1u and proc:4u cards
// (second index printed upright) lying alone, by the shipped models
// (TestUprightSecondIndex), and two of a deck printed as usual.
func TestUpsideDown(t *testing.T) {
	r := func(card string, conf float64) classify.Result {
		if card == "" {
			return classify.Result{Confidence: conf}
		}
		return classify.Result{Card: cards.MustParse(card), Confidence: conf}
	}
	for _, tc := range []struct {
		name      string
		a, ta     classify.Result // the corner that may be upright, and its glyphs turned
		b, tb     classify.Result // the corner that may be upside down
		wantUpset bool
	}{
		{"3♥ upside down read 8♦", r("3H", 0.967), r("8H", 0.518), r("8D", 0.504), r("3H", 0.928), true},
		{"and the other way round", r("8D", 0.504), r("3H", 0.928), r("3H", 0.967), r("8H", 0.518), false},
		{"8♠ upside down read 8♣, upright it reads itself turned less surely", r("8S", 0.94), r("8S", 0.54), r("8C", 0.55), r("8S", 0.92), true},
		{"6♥ and 9♦: a diamond turned is a diamond", r("6H", 0.98), r("9D", 0.87), r("9D", 0.90), r("6H", 0.97), true},
		{"and the other way round", r("9D", 0.90), r("6H", 0.97), r("6H", 0.98), r("9D", 0.87), false},
		{"8♥ and 8♦", r("8H", 0.95), r("8D", 0.92), r("8D", 0.95), r("8H", 0.98), true},
		{"6♦ and 9♦: either way up", r("6D", 0.96), r("9D", 0.94), r("9D", 0.96), r("6D", 0.95), false},
		{"2♦ and 7♦: either way up", r("2D", 0.98), r("7D", 0.54), r("7D", 0.73), r("2D", 0.92), false},
		{"a doubtful reading is not made sure", r("2S", 0.43), r("2S", 0.50), r("2C", 0.60), r("2S", 0.76), false},
		{"turned, the first corner reads its card as surely", r("8D", 0.9), r("8D", 0.9), r("8H", 0.6), r("8D", 0.9), false},
		{"turned glyphs read less than surely", r("3H", 0.967), r("8H", 0.518), r("8D", 0.504), r("3H", 0.7), false},
		{"turned glyphs read another card", r("3H", 0.967), r("8H", 0.518), r("8D", 0.504), r("3D", 0.95), false},
		{"turned glyphs read none", r("3H", 0.967), r("", 0.9), r("8D", 0.504), r("", 0.95), false},
		{"the first corner's turned glyphs read none", r("6D", 0.947), r("", 0.372), r("9D", 0.978), r("6D", 0.98), false},
		{"never a heart made a diamond", r("2D", 0.778), r("3H", 0.389), r("2H", 0.987), r("2D", 0.925), false},
		{"a 6 and a 9: the turned glyphs read another card", r("6C", 0.9), r("8C", 0.6), r("9S", 0.8), r("6C", 0.9), false},
		{"one card", r("3H", 0.967), r("8H", 0.518), r("3H", 0.8), r("3H", 0.95), false},
	} {
		if got := upsideDown(tc.a, tc.ta, tc.b, tc.tb); got != tc.wantUpset {
			t.Errorf("%s: upsideDown(%v, %v, %v, %v) = %v, want %v", tc.name, tc.a, tc.ta, tc.b, tc.tb, got, tc.wantUpset)
		}
	}
}

// TestJoinTen: the figures of a 10, upright or turned, are one box; a
// figure 1 beside a pip further than a third of its height is not joined
// to it, nor are the rank and pip of other cards.
func TestJoinTen(t *testing.T) {
	r := image.Rect
	for _, tc := range []struct {
		name  string
		boxes []image.Rectangle
		want  []image.Rectangle
	}{
		{"10 and a pip beside", []image.Rectangle{r(8, 9, 12, 23), r(16, 9, 22, 25), r(25, 9, 40, 22)}, []image.Rectangle{r(8, 9, 22, 25), r(25, 9, 40, 22)}},
		{"10 upside down, its 1 next to the pip", []image.Rectangle{r(2, 8, 9, 23), r(12, 8, 16, 22), r(20, 8, 35, 22)}, []image.Rectangle{r(2, 8, 16, 23), r(20, 8, 35, 22)}},
		{"10 with its pip below", []image.Rectangle{r(4, 4, 8, 18), r(9, 4, 15, 18), r(4, 21, 12, 29)}, []image.Rectangle{r(4, 4, 15, 18), r(4, 21, 12, 29)}},
		{"a 7 and its pip", []image.Rectangle{r(4, 4, 11, 18), r(4, 21, 12, 29)}, []image.Rectangle{r(4, 4, 11, 18), r(4, 21, 12, 29)}},
		{"a narrow figure alone", []image.Rectangle{r(4, 4, 8, 18), r(15, 4, 22, 18)}, []image.Rectangle{r(4, 4, 8, 18), r(15, 4, 22, 18)}},
	} {
		if got := joinTen(slices.Clone(tc.boxes)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: joinTen(%v) = %v, want %v", tc.name, tc.boxes, got, tc.want)
		}
	}
}

// TestDisputes: only a pair that dropSamePlace would put in doubt is
// read again turned.
func TestDisputes(t *testing.T) {
	rd := func(card string, conf float64, guessed, confirmed bool) read {
		return read{res: classify.Result{Card: cards.MustParse(card), Confidence: conf}, at: corner{Guessed: guessed}, confirmed: confirmed}
	}
	for _, tc := range []struct {
		name string
		a, b read
		want bool
	}{
		{"sure and at the floor", rd("3H", 0.97, false, false), rd("8D", 0.5, false, false), true},
		{"the other way round", rd("8D", 0.5, false, false), rd("3H", 0.97, false, false), true},
		{"below the floor", rd("3H", 0.97, false, false), rd("8D", 0.49, false, false), false},
		{"neither sure", rd("3H", 0.74, false, false), rd("8D", 0.7, false, false), false},
		{"the other at a guessed corner", rd("3H", 0.97, false, false), rd("8D", 0.7, true, false), false},
		{"the other at a guessed corner confirmed", rd("3H", 0.97, false, false), rd("8D", 0.7, true, true), true},
	} {
		if got := disputes(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: disputes = %v, want %v", tc.name, got, tc.want)
		}
	}
}
