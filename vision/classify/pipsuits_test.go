package classify

import (
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/cards"
	"bjmonitor/testvideos/camfx"
	"bjmonitor/testvideos/cardart"
	"bjmonitor/vision/pips"
)

// pipSuitsPath is the committed pip suit model, relative to this package.
var pipSuitsPath = filepath.Join("..", "..", "models", "pipsuit", "pipsuit.onnx")

func openPipSuits(tb testing.TB) *PipSuits {
	tb.Helper()
	p, err := OpenPipSuits(pipSuitsPath)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// suitTally is how a set of cards' pips were read, card by card: each
// card's glyphs summed in log-probability, its suit chosen between the
// two of its colour, as vision chooses.
type suitTally struct {
	cards, right int
	// least is the smallest margin of a right card; sureWrong counts the
	// wrong ones at a margin of 10 or more (vision's pipSuitMargin).
	least     float64
	sureWrong int
	// aces counts the aces whose pip was cut; acesRight and acesWrong
	// those whose suit it names, surely both as cut and turned.
	aces, acesRight, acesWrong int
}

// readPipSuits renders each number card and ace of decks n times through
// the camera (1.2 to 2.5 px/mm, either end up), cuts its face at 2 px/mm,
// and reads the suit of the glyphs pips.Read (pips.Ace) finds. art serves
// the decks.
func readPipSuits(t *testing.T, p *PipSuits, art *cardart.Art, decks []string, n int, seed uint64) map[string]*suitTally {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	cut := gocv.NewMat()
	defer cut.Close()
	out := map[string]*suitTally{}
	for _, deck := range decks {
		tl := &suitTally{least: math.Inf(1)}
		out[deck] = tl
		for _, c := range cards.Deck() {
			if c.Rank > 10 {
				continue
			}
			face, err := art.Face(deck, c)
			if err != nil {
				t.Fatalf("%s %v: %v", deck, c, err)
			}
			for range n {
				img, err := camfx.Face(face, cards.Width, cards.Length, 1.2+rng.Float64()*1.3, rng)
				if err != nil {
					t.Fatal(err)
				}
				if rng.IntN(2) == 1 {
					gocv.Rotate(img, &img, gocv.Rotate180Clockwise)
				}
				gocv.Resize(img, &cut, image.Pt(126, 176), 0, 0, gocv.InterpolationLinear)
				img.Close()
				glyphs := numberGlyphs(cut)
				if c.Rank == cards.Ace {
					glyphs = aceGlyphs(cut)
				}
				if len(glyphs) == 0 {
					continue
				}
				lp, err := p.ReadSuits(glyphs)
				if err != nil {
					t.Fatal(err)
				}
				a, b := 0, 3 // spades, clubs
				if c.Suit.Red() {
					a, b = 1, 2
				}
				// right is how much likelier glyphs make c's suit than
				// the other of its colour.
				right := func(lp [][4]float64) float64 {
					var m float64
					for _, g := range lp {
						m += g[a] - g[b]
					}
					if c.Suit == cards.Suits[b] {
						m = -m
					}
					return m
				}
				if c.Rank == cards.Ace {
					// As vision reads an ace: its pip as cut and turned,
					// a suit named only where both ways name it surely.
					asCut, turned := right(lp[:1]), right(lp[1:])
					tl.aces++
					switch {
					case asCut >= 10 && turned >= 10:
						tl.acesRight++
					case asCut <= -10 && turned <= -10:
						tl.acesWrong++
					}
					continue
				}
				margin := right(lp)
				tl.cards++
				switch {
				case margin > 0:
					tl.right++
					tl.least = min(tl.least, margin)
				case margin <= -10:
					tl.sureWrong++
				}
			}
		}
	}
	return out
}

// numberGlyphs returns the glyphs of a number card's face cut at 2
// px/mm, where pips.Read counts its pips.
func numberGlyphs(face gocv.Mat) [][]byte {
	f, ok := pips.Read(face, 2)
	if !ok {
		return nil
	}
	return f.Glyphs
}

// aceGlyphs returns the glyph of an ace's face cut at 2 px/mm, as cut
// and turned half round, where pips.Ace finds it.
func aceGlyphs(face gocv.Mat) [][]byte {
	f, ok := pips.Ace(face, 2)
	if !ok {
		return nil
	}
	turned := slices.Clone(f.Glyphs[0])
	slices.Reverse(turned)
	return [][]byte{f.Glyphs[0], turned}
}

// TestPipSuits reads the pips of decks the model never trained on: the
// held-out gnome decks and the procedural designs drawn in held-out fonts,
// with round and leaf-shaped clubs. Every number card's suit must be read
// right within its colour, and no ace's pip may name another suit.
func TestPipSuits(t *testing.T) {
	art, err := cardart.New(cardart.Options{})
	if err != nil {
		t.Skipf("no card art: %v", err)
	}
	defer art.Close()
	p := openPipSuits(t)
	defer p.Close()
	decks := []string{"dondorf", "neoclassical", "tigullio"}
	for i := 1; i <= 38; i++ {
		decks = append(decks, fmt.Sprintf("proc:%d", i), fmt.Sprintf("proc:%dl", i))
	}
	if testing.Short() {
		decks = []string{"dondorf", "proc:3", "proc:3l"}
	}
	for _, d := range decks {
		if slices.Contains(p.Metadata().TrainingDecks, d) {
			t.Fatalf("%s: the model trained on it", d)
		}
	}
	got := readPipSuits(t, p, art, decks, 1, 21)
	n, right, least := 0, 0, math.Inf(1)
	aces, acesRight := 0, 0
	for _, d := range decks {
		tl := got[d]
		n, right, least = n+tl.cards, right+tl.right, min(least, tl.least)
		aces, acesRight = aces+tl.aces, acesRight+tl.acesRight
		if tl.right != tl.cards {
			t.Errorf("%s: %d of %d cards' suits read right", d, tl.right, tl.cards)
		}
		if tl.acesWrong > 0 {
			t.Errorf("%s: %d aces' suits named wrong", d, tl.acesWrong)
		}
	}
	t.Logf("%d of %d number cards' suits read right within their colour, the least margin of a right one %.1f; %d of %d aces' pips name their suit, none another", right, n, least, acesRight, aces)
	if n < len(decks)*10 {
		t.Errorf("%d cards read, want %d at least", n, len(decks)*10)
	}
}

// TestPipSuitsAcceptance reads the pips of the KDE acceptance decks as
// TestPipSuits reads the development decks': measured only, nothing in the
// model or in vision's use of it was set by them.
func TestPipSuitsAcceptance(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the acceptance decks")
	}
	decks, err := cardart.AcceptanceDecks("")
	if err != nil {
		t.Skipf("no acceptance decks: %v", err)
	}
	art, err := cardart.NewAcceptance(cardart.Options{})
	if err != nil {
		t.Skipf("no card art: %v", err)
	}
	defer art.Close()
	p := openPipSuits(t)
	defer p.Close()
	var names, report []string
	for _, d := range decks {
		names = append(names, d.Name)
	}
	got := readPipSuits(t, p, art, names, 4, 22)
	for _, d := range names {
		tl := got[d]
		report = append(report, fmt.Sprintf("%s %d/%d (sure and wrong %d; aces named %d of %d, wrong %d)", d, tl.right, tl.cards, tl.sureWrong, tl.acesRight+tl.acesWrong, tl.aces, tl.acesWrong))
	}
	t.Logf("acceptance number cards' suits read right within their colour: %s", strings.Join(report, ", "))
}

// TestPipSuitsShipped: the shipped model trained on no acceptance deck.
func TestPipSuitsShipped(t *testing.T) {
	meta, err := ReadPipSuitsMetadata(pipSuitsPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range meta.TrainingDecks {
		if strings.HasPrefix(d, cardart.AcceptancePrefix) {
			t.Errorf("trained on %s, an acceptance deck", d)
		}
	}
}

func TestOpenPipSuitsRejects(t *testing.T) {
	model, err := os.ReadFile(pipSuitsPath)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := os.ReadFile(strings.TrimSuffix(pipSuitsPath, ".onnx") + ".json")
	if err != nil {
		t.Fatal(err)
	}
	edit := func(old, new string) []byte {
		if !strings.Contains(string(meta), old) {
			t.Fatalf("metadata has no %q", old)
		}
		return []byte(strings.Replace(string(meta), old, new, 1))
	}
	tests := []struct {
		name        string
		model, meta []byte
		want        string
	}{
		{"damaged model", append(slices.Clone(model[:len(model)/2]), 0), meta, "SHA-256"},
		{"other format", model, edit(PipSuitsFormat, "bjmonitor-pipsuit/9"), "format"},
		{"unknown field", model, edit(`"epochs"`, `"epocs": 1, "epochs"`), "unknown field"},
		{"suits in another order", model, edit(`"S",`, `"C",`), "classes"},
		{"another glyph size", model, edit(`"cols": 24`, `"cols": 32`), "input"},
		{"a deck trained on and held out", model, edit(`"heldout_decks": [`, `"heldout_decks": ["anglo", `), "both trained on and held out"},
		{"no metadata", model, nil, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, filepath.Base(pipSuitsPath))
			if err := os.WriteFile(p, tt.model, 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.meta != nil {
				if err := os.WriteFile(strings.TrimSuffix(p, ".onnx")+".json", tt.meta, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s, err := OpenPipSuits(p)
			if err == nil {
				s.Close()
				t.Fatal("opened")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to say %q", err, tt.want)
			}
		})
	}
}

// TestReadSuitsRejects: glyphs of the wrong size, and a closed reader,
// are errors.
func TestReadSuitsRejects(t *testing.T) {
	p := openPipSuits(t)
	if _, err := p.ReadSuits([][]byte{make([]byte, 10)}); err == nil {
		t.Error("a glyph of 10 pixels read")
	}
	p.Close()
	if _, err := p.ReadSuits([][]byte{make([]byte, pips.GlyphPx*pips.GlyphPx)}); err == nil {
		t.Error("read on a closed reader")
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
