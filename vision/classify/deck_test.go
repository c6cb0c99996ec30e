package classify

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"bjmonitor/cards"
)

// synthDeck returns a valid deck whose templates are random patterns of
// ink on paper, different for every card and corner.
func synthDeck(seed uint64) *Deck {
	rng := rand.New(rand.NewPCG(seed, 1))
	d := &Deck{Format: DeckFormat, Created: "2026-12-01T16:00:00Z", Source: "synthetic", PxPerMM: 1.55,
		Crop: DeckCrop{Cols: CropCols, Rows: CropRows, WidthMM: CropWidthMM, HeightMM: CropHeightMM}}
	for _, c := range cards.Deck() {
		dc := DeckCard{Card: c}
		for k := range dc.Corners {
			g := make([]byte, 3*CropCols*CropRows)
			for i := range g {
				g[i] = 235
			}
			// A few blobs of ink inside the index box, red for hearts
			// and diamonds.
			ink := [3]byte{30, 30, 30}
			if c.Suit.Red() {
				ink = [3]byte{40, 30, 200}
			}
			for range 6 {
				x0, y0 := 4+rng.IntN(14), 4+rng.IntN(40)
				for y := y0; y < y0+6; y++ {
					for x := x0; x < x0+4; x++ {
						copy(g[3*(y*CropCols+x):], ink[:])
					}
				}
			}
			dc.Corners[k] = Template{Ink: [4]int{4, 4, 22, 50}, BGR: g}
		}
		d.Cards = append(d.Cards, dc)
	}
	return d
}

func TestParseDeckRoundTrip(t *testing.T) {
	d := synthDeck(1)
	b, err := d.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseDeck(b)
	if err != nil {
		t.Fatalf("ParseDeck(Marshal(d)) = %v", err)
	}
	if !reflect.DeepEqual(got, d) {
		t.Error("ParseDeck(Marshal(d)) differs from d")
	}
	path := filepath.Join(t.TempDir(), "deck.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadDeck(path); err != nil {
		t.Errorf("LoadDeck = %v, want nil", err)
	}
}

func TestParseDeckErrors(t *testing.T) {
	valid := func() *Deck { return synthDeck(2) }
	for _, tc := range []struct {
		name   string
		change func(d *Deck)
		want   string
	}{
		{"format", func(d *Deck) { d.Format = "bjmonitor-deck/0" }, "format"},
		{"created", func(d *Deck) { d.Created = "yesterday" }, "created"},
		{"scale", func(d *Deck) { d.PxPerMM = 0.1 }, "px_per_mm"},
		{"crop", func(d *Deck) { d.Crop.Cols = 41 }, "crop"},
		{"too few cards", func(d *Deck) { d.Cards = d.Cards[:51] }, "51 cards"},
		{"twice", func(d *Deck) { d.Cards[1].Card = d.Cards[0].Card }, "AS enrolled twice"},
		{"not a card", func(d *Deck) { d.Cards[3].Card = cards.Card{} }, "card 3"},
		{"short template", func(d *Deck) { d.Cards[0].Corners[1].BGR = d.Cards[0].Corners[1].BGR[:100] }, "AS corner 1: 100 bytes"},
		{"ink outside", func(d *Deck) { d.Cards[5].Corners[0].Ink = [4]int{30, 4, 41, 20} }, "ink"},
		{"ink empty", func(d *Deck) { d.Cards[5].Corners[0].Ink = [4]int{10, 10, 10, 20} }, "ink"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := valid()
			tc.change(d)
			_, err := d.Marshal()
			if err == nil || !errors.Is(err, ErrDeck) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Marshal = %v, want an ErrDeck naming %q", err, tc.want)
			}
		})
	}
	for _, tc := range []struct{ name, text, want string }{
		{"unknown field", `{"format":"bjmonitor-deck/1","colour":true}`, "unknown field"},
		{"trailing data", `{"format":"bjmonitor-deck/1"} {}`, "data after"},
		{"not JSON", `deck`, "not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseDeck([]byte(tc.text))
			if err == nil || !errors.Is(err, ErrDeck) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseDeck(%q) = %v, want an ErrDeck naming %q", tc.text, err, tc.want)
			}
		})
	}
}

// FuzzParseDeck checks that ParseDeck never panics, and that what it
// accepts survives a round trip through Marshal unchanged.
func FuzzParseDeck(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "deck-*.json"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	valid, err := synthDeck(3).Marshal()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ParseDeck(b)
		if err != nil {
			return
		}
		again, err := d.Marshal()
		if err != nil {
			t.Fatalf("Marshal of a parsed deck: %v", err)
		}
		d2, err := ParseDeck(again)
		if err != nil {
			t.Fatalf("ParseDeck(Marshal(d)) = %v", err)
		}
		if !reflect.DeepEqual(d, d2) {
			t.Error("round trip changed the deck")
		}
	})
}
