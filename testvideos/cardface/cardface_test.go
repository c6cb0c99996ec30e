package cardface_test

import (
	"bytes"
	"flag"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/testvideos/cardface"

	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/gofont/gosmallcaps"
)

var sheet = flag.String("sheet", "", "write a contact sheet of designs drawn from the installed fonts to this PNG file")

// goFonts are the Go fonts, which come with the module rather than a
// Debian package, so these tests run on any machine.
func goFonts(tb testing.TB) []*cardface.Font {
	tb.Helper()
	var out []*cardface.Font
	for _, g := range []struct {
		name string
		src  []byte
	}{{"Go-Bold", gobold.TTF}, {"Go-Mono", gomono.TTF}, {"Go-Regular", goregular.TTF}, {"Go-Smallcaps", gosmallcaps.TTF}} {
		f, err := cardface.ParseFont(g.name, g.src)
		if err != nil {
			tb.Fatalf("ParseFont(%s) = %v", g.name, err)
		}
		out = append(out, f)
	}
	return out
}

func TestParseFontRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  []byte
	}{
		{"not a font", []byte("hello")},
		{"empty", nil},
	} {
		if f, err := cardface.ParseFont(tc.name, tc.src); err == nil {
			t.Errorf("ParseFont(%s) = %v, want an error", tc.name, f.Name)
		}
	}
}

// pxPerMM of the 300×420 faces the tests draw.
const faceW, faceH = 300, 420

func mm(v float64, horizontal bool) int {
	if horizontal {
		return int(v * faceW / 63)
	}
	return int(v * faceH / 88)
}

// TestIndexWithinExtent draws every card of many designs and checks what
// the training data relies on: the card is opaque inside its outline and
// clear outside it, the top-left corner carries ink within Extent, and
// the strip below the index down to the bottom index is bare paper, so
// that a card laid over the corner beyond Extent hides no index.
func TestIndexWithinExtent(t *testing.T) {
	fonts := goFonts(t)
	r := rand.New(rand.NewPCG(1, 2))
	for design := range 12 {
		st, err := cardface.NewStyle(r, fonts)
		if err != nil {
			t.Fatalf("NewStyle: %v", err)
		}
		if st.Extent.X > 19 || st.Extent.Y > 34.5 || st.Extent.X < 4 || st.Extent.Y < 8 {
			t.Errorf("design %d (%s): Extent = %+v, want within 4..19 × 8..34.5 mm", design, st.FontName(), st.Extent)
		}
		for _, c := range cards.Deck() {
			img, err := cardface.Draw(st, c, faceW, faceH)
			if err != nil {
				t.Fatalf("Draw(%v) = %v", c, err)
			}
			if a := img.NRGBAAt(0, 0).A; a != 0 {
				t.Errorf("design %d %v: alpha %d at the corner pixel, want 0 outside the rounded outline", design, c, a)
			}
			if a := img.NRGBAAt(faceW/2, faceH/2).A; a != 255 {
				t.Errorf("design %d %v: alpha %d at the centre, want 255", design, c, a)
			}
			paper := img.NRGBAAt(mm(st.Extent.X, true)+2, mm(st.Extent.Y, false)+2)
			if n := inkIn(img, image.Rect(0, 0, mm(st.Extent.X, true), mm(st.Extent.Y, false)), paper); n < 20 {
				t.Errorf("design %d %v: %d ink pixels in the top-left index, want some", design, c, n)
			}
			strip := image.Rect(mm(1, true), mm(st.Extent.Y+0.5, false), mm(st.Extent.X-0.5, true), mm(88-st.Extent.Y-0.5, false))
			if n := inkIn(img, strip, paper); n > 0 {
				t.Errorf("design %d (%s) %v: %d ink pixels in %v below the index, want bare paper", design, st.FontName(), c, n, strip)
			}
		}
	}
}

// TestInset moves many designs' index tight into the corner and checks
// that its ink comes to the inset asked for, no nearer, over the deck,
// and that Extent still holds it: the strip below it is bare paper.
func TestInset(t *testing.T) {
	fonts := goFonts(t)
	r := rand.New(rand.NewPCG(3, 4))
	const inset = 1.0
	for design := range 8 {
		st, err := cardface.NewStyle(r, fonts)
		if err != nil {
			t.Fatalf("NewStyle: %v", err)
		}
		if err := st.Inset(inset, inset); err != nil {
			t.Fatalf("design %d: Inset = %v", design, err)
		}
		// Ink nearest the long and the short edge over the deck, in face
		// pixels, below and right of the rounded corner (4 mm), inside
		// the edge line some designs draw (0.3 mm).
		const edgeLine = 2
		nearX, nearY := faceW, faceH
		for _, c := range cards.Deck() {
			img, err := cardface.Draw(st, c, faceW, faceH)
			if err != nil {
				t.Fatalf("Draw(%v) = %v", c, err)
			}
			paper := img.NRGBAAt(mm(st.Extent.X, true)+2, mm(st.Extent.Y, false)+2)
			for x := edgeLine; x < mm(st.Extent.X, true); x++ {
				if inkIn(img, image.Rect(x, mm(4, false), x+1, mm(st.Extent.Y, false)), paper) > 0 {
					nearX = min(nearX, x)
					break
				}
			}
			for y := edgeLine; y < mm(st.Extent.Y, false); y++ {
				if inkIn(img, image.Rect(mm(4, true), y, mm(st.Extent.X, true), y+1), paper) > 0 {
					nearY = min(nearY, y)
					break
				}
			}
			if n := inkIn(img, image.Rect(0, 0, mm(st.Extent.X, true), mm(st.Extent.Y, false)), paper); n < 20 {
				t.Errorf("design %d %v: %d ink pixels in the top-left index, want some", design, c, n)
			}
			strip := image.Rect(mm(1, true), mm(st.Extent.Y+0.5, false), mm(st.Extent.X-0.5, true), mm(88-st.Extent.Y-0.5, false))
			if n := inkIn(img, strip, paper); n > 0 {
				t.Errorf("design %d (%s) %v: %d ink pixels in %v below the index, want bare paper", design, st.FontName(), c, n, strip)
			}
		}
		// A face pixel is a fifth of a mm: the ink's anti-aliased rim
		// may reach a pixel nearer.
		lo, hi := mm(inset, true)-1, mm(inset+0.5, true)
		if nearX < lo || nearX > hi {
			t.Errorf("design %d (%s): ink %d px from the long edge, want %d..%d (%.1f mm)", design, st.FontName(), nearX, lo, hi, inset)
		}
		lo, hi = mm(inset, false)-1, mm(inset+0.5, false)
		if nearY < lo || nearY > hi {
			t.Errorf("design %d (%s): ink %d px from the short edge, want %d..%d (%.1f mm)", design, st.FontName(), nearY, lo, hi, inset)
		}
	}
}

// inkIn counts the pixels of r that differ clearly from the paper colour.
func inkIn(img *image.NRGBA, r image.Rectangle, paper color.NRGBA) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			p := img.NRGBAAt(x, y)
			d := math.Abs(float64(p.R)-float64(paper.R)) + math.Abs(float64(p.G)-float64(paper.G)) + math.Abs(float64(p.B)-float64(paper.B))
			if d > 60 {
				n++
			}
		}
	}
	return n
}

// TestDrawRepeats checks that a design is a pure function of its random
// source: training sets are regenerated from a seed.
func TestDrawRepeats(t *testing.T) {
	fonts := goFonts(t)
	c := cards.MustParse("TH")
	var prev []byte
	for range 2 {
		st, err := cardface.NewStyle(rand.New(rand.NewPCG(7, 7)), fonts)
		if err != nil {
			t.Fatal(err)
		}
		img, err := cardface.Draw(st, c, faceW, faceH)
		if err != nil {
			t.Fatal(err)
		}
		if prev != nil && !bytes.Equal(prev, img.Pix) {
			t.Error("the same seed drew two different faces")
		}
		prev = img.Pix
	}
}

func TestDrawRefuses(t *testing.T) {
	st, err := cardface.NewStyle(rand.New(rand.NewPCG(1, 1)), goFonts(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		st   cardface.Style
		c    cards.Card
		w, h int
	}{
		{"invalid card", st, cards.Card{}, faceW, faceH},
		{"zero style", cardface.Style{}, cards.MustParse("AS"), faceW, faceH},
		{"tiny", st, cards.MustParse("AS"), 8, 11},
	} {
		if _, err := cardface.Draw(tc.st, tc.c, tc.w, tc.h); err == nil {
			t.Errorf("Draw(%s) = nil error, want one", tc.name)
		}
	}
	if _, err := cardface.NewStyle(rand.New(rand.NewPCG(1, 1)), nil); err == nil {
		t.Error("NewStyle with no font = nil error, want one")
	}
}

// TestContactSheet draws designs from the installed fonts for a look:
//
//	go test ./testvideos/cardface -run TestContactSheet -args -sheet=/tmp/designs.png
func TestContactSheet(t *testing.T) {
	if *sheet == "" {
		t.Skip("no -sheet")
	}
	fonts, err := cardface.LoadFonts(cardface.DefaultFontDirs...)
	if err != nil {
		t.Fatal(err)
	}
	const cw, ch, rows = 150, 210, 10
	out := image.NewNRGBA(image.Rect(0, 0, 13*cw, rows*ch))
	draw.Draw(out, out.Bounds(), image.NewUniform(color.NRGBA{30, 90, 40, 255}), image.Point{}, draw.Src)
	r := rand.New(rand.NewPCG(1, 1))
	for row := range rows {
		st, err := cardface.NewStyle(r, fonts)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("row %d: %s, four corners %v, extent %.1f × %.1f mm", row, st.FontName(), st.FourCorners, st.Extent.X, st.Extent.Y)
		for i := range 13 {
			img, err := cardface.Draw(st, cards.Card{Rank: cards.Rank(i + 1), Suit: cards.Suits[(i+row)%4]}, cw, ch)
			if err != nil {
				t.Fatal(err)
			}
			draw.Draw(out, image.Rect(i*cw, row*ch, (i+1)*cw, (row+1)*ch), img, image.Point{}, draw.Over)
		}
	}
	f, err := os.Create(*sheet)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, out); err != nil {
		t.Fatal(err)
	}
}

// TestPointClubs draws designs' clubs with pointed lobes: the club pips
// change and the other suits do not, a pip's ink stays in its box (the
// index and Extent hold), and point 0 draws round lobes again.
func TestPointClubs(t *testing.T) {
	fonts := goFonts(t)
	r := rand.New(rand.NewPCG(5, 6))
	for design := range 6 {
		st, err := cardface.NewStyle(r, fonts)
		if err != nil {
			t.Fatal(err)
		}
		pointed, round := st, st
		pointed.PointClubs(0.7)
		round.PointClubs(0.7)
		round.PointClubs(0)
		for _, name := range []string{"7C", "7S", "7H", "KC"} {
			c := cards.MustParse(name)
			plain, err := cardface.Draw(round, c, faceW, faceH)
			if err != nil {
				t.Fatal(err)
			}
			leaf, err := cardface.Draw(pointed, c, faceW, faceH)
			if err != nil {
				t.Fatal(err)
			}
			changed := !bytes.Equal(plain.Pix, leaf.Pix)
			if changed != (c.Suit == cards.Clubs) {
				t.Errorf("design %d %v: pointed clubs changed the face: %v, want %v", design, c, changed, c.Suit == cards.Clubs)
			}
			paper := leaf.NRGBAAt(mm(st.Extent.X, true)+2, mm(st.Extent.Y, false)+2)
			if n := inkIn(leaf, image.Rect(mm(st.Extent.X, true), mm(1, false), mm(st.Extent.X, true)+1, mm(st.Extent.Y, false)), paper); n > 0 {
				t.Errorf("design %d %v: %d ink pixels just right of the index, want none", design, c, n)
			}
		}
	}
}
