package vision

import (
	"errors"
	"testing"

	"bjmonitor/cards"
)

// TestSuitOf: the pips name the suit of the colour read that their
// glyphs make likelier by pipSuitMargin at least, and none otherwise.
func TestSuitOf(t *testing.T) {
	// lp: natural logs, in cards.Suits' order (spades, hearts, diamonds,
	// clubs).
	lp := func(s, h, d, c float64) *[4]float64 { return &[4]float64{s, h, d, c} }
	tests := []struct {
		name  string
		suits *[4]float64
		like  cards.Suit
		want  cards.Suit
	}{
		{"not read", nil, cards.Spades, 0},
		{"clubs, surely", lp(-14, -30, -30, -0.01), cards.Spades, cards.Clubs},
		{"spades, surely", lp(-0.01, -30, -30, -14), cards.Clubs, cards.Spades},
		{"clubs, not surely", lp(-6, -30, -30, -0.01), cards.Spades, 0},
		{"diamonds, for a heart read", lp(-0.01, -40, -0.5, -3), cards.Hearts, cards.Diamonds},
		{"black pips weigh nothing for a red card", lp(0, -20, -20, -40), cards.Hearts, 0},
		{"no colour read", lp(-14, -30, -30, -0.01), 0, 0},
	}
	for _, tt := range tests {
		if got := suitOf(tt.suits, tt.like); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// suitsFunc is a SuitReader that answers as its function does.
type suitsFunc func(glyphs [][]byte) ([][4]float64, error)

func (f suitsFunc) ReadSuits(glyphs [][]byte) ([][4]float64, error) { return f(glyphs) }

// TestReadSuits: the glyphs' log-probabilities are summed suit by suit;
// no reader, no glyph, a reader that fails or answers for too few glyphs
// give none.
func TestReadSuits(t *testing.T) {
	glyphs := [][]byte{{1}, {2}}
	each := suitsFunc(func(g [][]byte) ([][4]float64, error) {
		out := make([][4]float64, len(g))
		for i := range out {
			out[i] = [4]float64{-1, -2, -3, -float64(i)}
		}
		return out, nil
	})
	tests := []struct {
		name   string
		reader SuitReader
		glyphs [][]byte
		want   *[4]float64
	}{
		{"summed", each, glyphs, &[4]float64{-2, -4, -6, -1}},
		{"no reader", nil, glyphs, nil},
		{"no glyph", each, nil, nil},
		{"a reader that fails", suitsFunc(func([][]byte) ([][4]float64, error) { return nil, errors.New("broken") }), glyphs, nil},
		{"an answer short", suitsFunc(func([][]byte) ([][4]float64, error) { return make([][4]float64, 1), nil }), glyphs, nil},
	}
	for _, tt := range tests {
		d := &Detector{opts: Options{Suits: tt.reader}}
		got := d.readSuits(tt.glyphs)
		if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestAceSuits: an ace's pip is read as its face was cut where the card's
// index reads it the same way up as the shape's axis runs, and turned
// where it reads it the other way.
func TestAceSuits(t *testing.T) {
	asCut, turned := &[4]float64{-0.01, -30, -30, -14}, &[4]float64{-14, -30, -30, -0.01}
	sp := shapePips{ace: true, axis: pt(0, 1), suits: asCut, turned: turned}
	if got := sp.aceSuits(pt(0.1, 0.99)); got != asCut {
		t.Errorf("the same way up: %v, want the suits as cut", got)
	}
	if got := sp.aceSuits(pt(0, -1)); got != turned {
		t.Errorf("upside down: %v, want the suits turned", got)
	}
}
