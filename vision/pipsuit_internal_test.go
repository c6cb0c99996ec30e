package vision

import (
	"errors"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/vision/pips"
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

// TestReadSuits: the glyphs' log-probabilities are summed suit by suit,
// split where the glyphs are likeliest of different suits; no reader, no
// glyph, a reader that fails or answers for too few glyphs give none.
func TestReadSuits(t *testing.T) {
	glyphs := [][]byte{{1}, {2}}
	each := suitsFunc(func(g [][]byte) ([][4]float64, error) {
		out := make([][4]float64, len(g))
		for i := range out {
			out[i] = [4]float64{-1, -2, -3, -float64(i) / 2}
		}
		return out, nil
	})
	twoSuits := suitsFunc(func(g [][]byte) ([][4]float64, error) {
		return [][4]float64{{-0.01, -30, -5, -30}, {-5, -30, -0.01, -30}}, nil
	})
	tests := []struct {
		name      string
		reader    SuitReader
		glyphs    [][]byte
		want      *[4]float64
		wantSplit bool
	}{
		{"summed", each, glyphs, &[4]float64{-2, -4, -6, -0.5}, false},
		{"split", twoSuits, glyphs, &[4]float64{-5.01, -60, -5.01, -60}, true},
		{"no reader", nil, glyphs, nil, false},
		{"no glyph", each, nil, nil, false},
		{"a reader that fails", suitsFunc(func([][]byte) ([][4]float64, error) { return nil, errors.New("broken") }), glyphs, nil, false},
		{"an answer short", suitsFunc(func([][]byte) ([][4]float64, error) { return make([][4]float64, 1), nil }), glyphs, nil, false},
	}
	for _, tt := range tests {
		d := &Detector{opts: Options{Suits: tt.reader}}
		got, split := d.readSuits(tt.glyphs)
		if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want || split != tt.wantSplit {
			t.Errorf("%s: %v, split %v; want %v, split %v", tt.name, got, split, tt.want, tt.wantSplit)
		}
	}
}

// TestAceSuit: an ace's pip names a suit only where it is read so both
// as its face was cut and turned half round.
func TestAceSuit(t *testing.T) {
	club, spade, unsure := &[4]float64{-14, -30, -30, -0.01}, &[4]float64{-0.01, -30, -30, -14}, &[4]float64{-1, -30, -30, -0.5}
	tests := []struct {
		name          string
		asCut, turned *[4]float64
		want          cards.Suit
	}{
		{"both ways a club", club, club, cards.Clubs},
		{"a club one way, a spade the other", club, spade, 0},
		{"a spade one way, unsure the other", spade, unsure, 0},
		{"not read", nil, nil, 0},
	}
	for _, tt := range tests {
		sp := shapePips{ace: true, suits: tt.asCut, turned: tt.turned}
		if got := sp.aceSuit(cards.Spades); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestBearsOut: a card's pips bear its reading out where they were
// counted, count its rank, and name its suit over each of the other
// three, black suits against red ones too.
func TestBearsOut(t *testing.T) {
	lp := func(s, h, d, c float64) *[4]float64 { return &[4]float64{s, h, d, c} }
	hearts := lp(-30, -0.01, -14, -30)
	eight := func(suits *[4]float64) shapePips {
		return shapePips{face: pips.Face{Pips: 8}, ok: true, suits: suits}
	}
	tests := []struct {
		name string
		sp   shapePips
		read cards.Card
		want bool
	}{
		{"eight hearts, read 8H", eight(hearts), cards.New(cards.Eight, cards.Hearts), true},
		{"eight diamonds, read 8H", eight(lp(-30, -14, -0.01, -30)), cards.New(cards.Eight, cards.Hearts), false},
		{"eight hearts not surely, read 8H", eight(lp(-30, -0.01, -6, -30)), cards.New(cards.Eight, cards.Hearts), false},
		{"eight pips, their suit not read", eight(nil), cards.New(cards.Eight, cards.Hearts), false},
		{"a heart's pips, near as likely a spade's", eight(lp(-5, -0.01, -30, -30)), cards.New(cards.Eight, cards.Hearts), false},
		{"eight hearts, read 8S", eight(hearts), cards.New(cards.Eight, cards.Spades), false},
		{"eight hearts, read 6H", eight(hearts), cards.New(cards.Six, cards.Hearts), false},
		{"eight hearts, the index unread", eight(hearts), cards.Card{Rank: cards.Eight}, false},
		{"pips not counted", shapePips{suits: hearts}, cards.New(cards.Eight, cards.Hearts), false},
	}
	for _, tt := range tests {
		if got := bearsOut(tt.sp, tt.read); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestCheckPipsBearsOut: a reading its card's pips bear out is sure at
// least; one whose rank their count changed is not, though the pips
// then bear out the card it became.
func TestCheckPipsBearsOut(t *testing.T) {
	s := cardShape{centre: pt(100, 100), v: pt(0, 1)}
	hearts := &[4]float64{-30, -0.01, -14, -30}
	eightH, sixH := cards.New(cards.Eight, cards.Hearts), cards.New(cards.Six, cards.Hearts)
	tests := []struct {
		name     string
		read     cards.Card
		conf     float64
		wantCard cards.Card
		wantConf float64
	}{
		{"a faint index its pips bear out", eightH, 0.44, eightH, Confident},
		{"a sure index stays as sure", eightH, 0.95, eightH, 0.95},
		{"an index whose rank the pips count otherwise", sixH, 0.9, eightH, pipDoubt},
	}
	for _, tt := range tests {
		z := &zone{
			shapes: []cardShape{s},
			pips:   []shapePips{{face: pips.Face{Pips: 8}, ok: true, suits: hearts}},
			obs:    []Observation{{Card: tt.read, Confidence: tt.conf, Center: s.centre, Angle: 90}},
		}
		(&Detector{}).checkPips(z)
		if o := z.obs[0]; o.Card != tt.wantCard || o.Confidence != tt.wantConf {
			t.Errorf("%s: %v at %.2f, want %v at %.2f", tt.name, o.Card, o.Confidence, tt.wantCard, tt.wantConf)
		}
	}
}

// TestCheckPipsRankAlone: a card whose index the model could not read is
// known by the rank its pips count; where their glyphs name a suit over
// all four (no index tells the colour), the observation's pips carry it
// for the tracker (Observation.Pips), and the card stays as doubtful.
func TestCheckPipsRankAlone(t *testing.T) {
	s := cardShape{centre: pt(100, 100), v: pt(0, 1)}
	tests := []struct {
		name     string
		suits    *[4]float64 // spades, hearts, diamonds, clubs
		wantPips cards.Card
	}{
		{"the pips name diamonds", &[4]float64{-70, -160, -0.01, -170}, cards.New(cards.Eight, cards.Diamonds)},
		{"the pips leave diamonds and spades close", &[4]float64{-5, -160, -0.01, -170}, cards.Card{Rank: cards.Eight}},
		{"the suits not read", nil, cards.Card{Rank: cards.Eight}},
		// A shape cut over the card beside it: proc:24 seed 5021's 4♦,
		// two of its diamonds and two spades of the 2♠ over it counted.
		{"the glyphs split", &[4]float64{-0.01, -160, -15, -170}, cards.Card{Rank: cards.Eight}},
	}
	for _, tt := range tests {
		z := &zone{
			shapes: []cardShape{s},
			pips:   []shapePips{{face: pips.Face{Pips: 8}, ok: true, suits: tt.suits, split: tt.name == "the glyphs split"}},
			obs:    []Observation{{Center: s.centre, Angle: 90}},
		}
		(&Detector{}).checkPips(z)
		if o := z.obs[0]; o.Card != (cards.Card{Rank: cards.Eight}) || o.Confidence != pipCount || o.Pips != tt.wantPips {
			t.Errorf("%s: %v at %.2f, pips %v; want 8? at %.2f, pips %v", tt.name, o.Card, o.Confidence, o.Pips, pipCount, tt.wantPips)
		}
	}
}
