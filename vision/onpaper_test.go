package vision

import (
	"math"
	"slices"
	"testing"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/vision/classify"
)

// TestBodyOnPaper checks the test that a corner read as an index has its
// card's body on the paper, with the paper drawn in table mm: index ink
// that reaches a card's edge notches the outline and must not lose the
// card, while a corner read turned a quarter must still be refused.
func TestBodyOnPaper(t *testing.T) {
	type box struct{ x0, y0, x1, y1 float64 }
	in := func(b box, p calibration.Point) bool { return p.X >= b.x0 && p.X <= b.x1 && p.Y >= b.y0 && p.Y <= b.y1 }
	card := box{0, 0, cardW, cardH}
	// Index columns printed up to the edge, as camera blur leaves them:
	// the number and its pip, some 11 mm wide and 20 long, in a corner.
	notches := []box{
		{cardW - 11, 2, cardW, 22},                 // top right
		{0, cardH - 22, 11, cardH - 2},             // bottom left
		{0, 2, 11, 22},                             // top left
		{cardW - 11, cardH - 22, cardW, cardH - 2}, // bottom right
	}
	// A pip under the test point towards the top right corner, which a
	// notch joins to the felt: paper lies all round it, but the blob's
	// outline does not fill it in.
	pip := []box{{43, 8, 52, 18}, {52, 12, cardW, 14}}
	paper := func(cards []box, notched int, holes ...box) func(calibration.Point) bool {
		return func(p calibration.Point) bool {
			for _, n := range append(notches[:notched:notched], holes...) {
				if in(n, p) {
					return false
				}
			}
			for _, c := range cards {
				if in(c, p) {
					return true
				}
			}
			return false
		}
	}
	topLeft := corner{P: pt(0, 0), U: pt(1, 0), V: pt(0, 1)}
	// The bottom-left corner of a four-index deck, read with the frame a
	// quarter turned: its card would stick out 25 mm past the right edge.
	turned := corner{P: pt(0, cardH), U: pt(0, -1), V: pt(1, 0)}
	// The next card of the hand lies up and to the right, over part of
	// where that turned card would be.
	next := box{15, -22, 15 + cardW, -22 + cardH}
	// A sideways double on top of a hand: the polygon cuts its long edge
	// in two near the corner, and the short piece the corner is taken
	// from is some 9° off, so its body is reckoned turned that much.
	tilt := math.Sin(9 * math.Pi / 180)
	tilted := func(sign float64) corner {
		return corner{P: pt(0, 0), U: pt(1, 0), V: pt(sign*tilt, 1).Unit()}
	}
	tests := []struct {
		name    string
		at      corner
		cards   []box
		notched int
		holes   []box
		want    bool
	}{
		{"a card alone", topLeft, []box{card}, 0, nil, true},
		{"index ink up to the edge at the far top corner", topLeft, []box{card}, 1, nil, true},
		{"index ink up to the edge at two corners", topLeft, []box{card}, 2, nil, true},
		{"index ink up to the edge at all four corners", topLeft, []box{card}, 4, nil, true},
		{"a sideways double, its long edge reckoned 9° off", tilted(-1), []box{card}, 0, nil, true},
		{"a sideways double, its long edge reckoned 9° off the other way", tilted(1), []box{card}, 0, nil, true},
		{"a pip joined to the felt by a notch", topLeft, []box{card}, 0, pip, true},
		{"a pip joined to the felt, and the corner read a quarter turned", turned, []box{card}, 0, pip, false},
		{"a corner read a quarter turned", turned, []box{card}, 0, nil, false},
		{"a corner read a quarter turned, the next card over its overhang", turned, []box{card, next}, 4, nil, false},
		{"off the paper", corner{P: pt(cardW+5, 0), U: pt(1, 0), V: pt(0, 1)}, []box{card}, 0, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bodyOnPaper(tt.at, paper(tt.cards, tt.notched, tt.holes...)); got != tt.want {
				t.Errorf("bodyOnPaper = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestBodyOverCloth checks the test that a corner placed from an index
// alone would have its card reach over the felt, with cards drawn in
// table mm and the cloth everywhere else: fresh proc:21 4864 round 1000,
// a dealer's row of three cards of a four-index deck, each laid some
// 25 mm right of the one before, where a corner placed from the middle
// card's bottom-left index, as if it were a bottom-right one, offers a
// card reaching 14.5 mm past the row's left end; and proc:6u 2701 round
// 1003, whose dealer's hole card is read only from a corner placed 5.4
// mm right of its own.
func TestBodyOverCloth(t *testing.T) {
	type box struct{ x0, x1 float64 }
	cloth := func(cards ...box) func(calibration.Point) bool {
		return func(p calibration.Point) bool {
			for _, c := range cards {
				if p.X >= c.x0 && p.X <= c.x1 && p.Y >= 0 && p.Y <= cardH {
					return false
				}
			}
			return true
		}
	}
	row := []box{{0, cardW}, {24.8, 24.8 + cardW}, {51.6, 51.6 + cardW}}
	hole := []box{{-22.2, -22.2 + cardW}, {0, cardW}}
	tests := []struct {
		name  string
		at    corner
		cards []box
		want  bool
	}{
		{"a corner placed from a four-index deck's other index, its card past the row's end", corner{P: pt(cardW-14.5, cardH), U: pt(-1, 0), V: pt(0, -1), Guessed: true}, row, true},
		{"a corner placed from the middle card's own index", corner{P: pt(24.8, 0), U: pt(1, 0), V: pt(0, 1), Guessed: true}, row, false},
		{"a corner placed 5.4 mm right of its card's, the last of the row", corner{P: pt(5.4, 0), U: pt(1, 0), V: pt(0, 1), Guessed: true}, hole, false},
		{"a card alone", corner{P: pt(0, 0), U: pt(1, 0), V: pt(0, 1), Guessed: true}, []box{{0, cardW}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bodyOverCloth(tt.at, cloth(tt.cards...)); got != tt.want {
				t.Errorf("bodyOverCloth = %v, want %v", got, tt.want)
			}
		})
	}
	// Where the cloth's colour is not known, nothing is cloth.
	if bodyOverCloth(tests[0].at, func(calibration.Point) bool { return false }) {
		t.Error("bodyOverCloth with no cloth known = true")
	}
}

// TestObserveTurnedReading checks that a card of a deck with an index in
// every corner, read also at a corner of the other kind a quarter turned,
// is one card, even where that turned index is misread doubtfully as
// another card; so is an index read from two corners a few millimetres
// and degrees apart; while two cards alike in one hand stay two. The
// misread turned index is dondorf's 6♦ read as a 9♦ at 0.42 in seed 2204
// round 1033, which put a 9♦ in the hand; the index read from two corners
// is neoclassical's Q♥ in seed 2250 round 1020, read at 0.97 and 0.96
// from corners 4 mm and 14° apart, which busted seat 3's hand.
func TestObserveTurnedReading(t *testing.T) {
	d := unreadDetector(t)
	nine := cards.MustParse("9D")
	six := cards.MustParse("6D")
	readAs := func(c cards.Card, p, u, v calibration.Point, conf float64) read {
		return read{res: classify.Result{Card: c, Confidence: conf}, at: corner{P: p, U: u, V: v}}
	}
	at := func(p, u, v calibration.Point, conf float64) read { return readAs(nine, p, u, v, conf) }
	index := at(pt(0, 0), pt(1, 0), pt(0, 1), 0.95)
	step := pt(14, -16)                 // the next card of a hand
	turned := func(conf float64) read { // the index, read from a corner 4 mm off, turned 14°
		return at(pt(2.6, -3), pt(math.Cos(0.244), -math.Sin(0.244)), pt(math.Sin(0.244), math.Cos(0.244)), conf)
	}
	// The index card's paper alone: the turned corner's card would reach
	// off it.
	oneCard := func(p calibration.Point) bool { return p.X >= 0 && p.Y >= 0 && p.X <= cardW && p.Y <= cardH }
	tests := []struct {
		name  string
		reads []read
		paper func(calibration.Point) bool // nil: everywhere
		want  int
	}{
		{"a card read at its index corner", []read{index}, nil, 1},
		{"and at its bottom-left corner, a quarter turned", []read{index, at(pt(0, cardH), pt(0, -1), pt(1, 0), 0.53)}, nil, 1},
		{"and at its top-right corner, a quarter turned", []read{index, at(pt(cardW, 0), pt(0, 1), pt(-1, 0), 0.53)}, nil, 1},
		{"and at its bottom-left corner, doubtfully as another card", []read{index, readAs(six, pt(0, cardH), pt(0, -1), pt(1, 0), 0.42)}, nil, 1},
		{"another card read surely there is another card", []read{index, readAs(six, pt(0, cardH), pt(0, -1), pt(1, 0), 0.8)}, nil, 2},
		{"and from a corner 4 mm off, turned 14°", []read{index, turned(0.94)}, nil, 1},
		{"and there surer, its card off the paper", []read{index, turned(0.97)}, oneCard, 1},
		{"two cards alike in a hand", []read{index, at(step, pt(1, 0), pt(0, 1), 0.9)}, nil, 2},
		{"a double alike across the hand", []read{index, at(step.Scale(1.6).Add(pt(cardW/2+cardH/2, cardH/2-cardW/2)), pt(0, 1), pt(-1, 0), 0.9)}, nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			paper := tt.paper
			if paper == nil {
				paper = func(calibration.Point) bool { return true }
			}
			got := d.observe(tt.reads, nil, nil, paper)
			if len(got) != tt.want {
				t.Errorf("%d observations, want %d: %+v", len(got), tt.want, got)
			}
		})
	}
}

// TestMergeTurnedReading checks that a card's turned index, read by a zone
// that does not read the card's own index, is dropped when the zones'
// observations are merged (dondorf seed 2207 round 1045), while a card
// read surely there stays.
func TestMergeTurnedReading(t *testing.T) {
	at := func(card string, conf, x, y, angle float64) Observation {
		return Observation{Card: cards.MustParse(card), Confidence: conf, Center: calibration.Point{X: x, Y: y}, Angle: angle}
	}
	nine := at("9C", 0.97, 353, 330, 70)
	tests := []struct {
		name  string
		other Observation
		want  int
	}{
		{"its turned index, doubtful", at("9C", 0.51, 336.7, 323.7, 159), 1},
		{"its turned index misread", at("9D", 0.4, 336.7, 323.7, 159), 1},
		{"another card read surely there", at("9D", 0.9, 336.7, 323.7, 159), 2},
		{"the same card 18 mm off, not turned", at("9C", 0.51, 336.7, 323.7, 70), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &Detector{zones: []*zone{{obs: []Observation{nine}}, {obs: []Observation{tt.other}}}}
			if got := d.merge(); len(got) != tt.want {
				t.Errorf("%d observations, want %d: %+v", len(got), tt.want, got)
			}
		})
	}
}

// TestObserveBorrowedIndex checks that an index of a card on top, read
// half turned from a corner that is not that card's, does not put that
// card where the card beneath lies (dondorf, still seed 1004: the dealer's
// 3♥ read as the K♣ lying over it, at 0.96; seed 1001: an A♣ read as the
// J♦ over the 9♣ beside it, at 0.98, by the fast model of 2026-12-02).
// The geometry is seed 1004's, in the K♣'s frame: its bottom-left index
// (printed half turned) read from a corner 12 mm along and 5 mm below its
// bottom edge, whose card would lie over the 3♥.
func TestObserveBorrowedIndex(t *testing.T) {
	d := unreadDetector(t)
	readAs := func(card string, p, u calibration.Point, conf float64) read {
		return read{res: classify.Result{Card: cards.MustParse(card), Confidence: conf}, at: corner{P: p, U: u, V: pt(-u.Y, u.X)}}
	}
	right, left := pt(1, 0), pt(-1, 0)
	king := readAs("KC", pt(0, 0), right, 0.98)
	borrowed := readAs("KC", pt(11.7, 92.9), left, 0.96) // its card's centre: (-19.8, 48.9)
	beneath := readAs("3H", pt(-51.3, 4.9), right, 0.94)
	tests := []struct {
		name  string
		reads []read
		want  []string
	}{
		{"the card beneath read as the card on top", []read{king, borrowed, beneath}, []string{"KC", "3H"}},
		{"read less surely than the card beneath", []read{king, readAs("KC", pt(11.7, 92.9), left, 0.9), beneath}, []string{"KC", "3H"}},
		// Nothing else is read where it would put its card: which of the
		// two is the card's own place cannot be told.
		{"nothing read beneath", []read{king, borrowed}, []string{"KC", "KC"}},
		{"another card read where the card on top lies too", []read{king, borrowed, beneath, readAs("7S", pt(1, 1), right, 0.5)}, []string{"KC", "KC"}},
		{"two cards alike in a hand", []read{king, readAs("KC", pt(-25, 5), right, 0.97)}, []string{"KC", "KC"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, o := range d.observe(tt.reads, nil, nil, func(calibration.Point) bool { return true }) {
				got = append(got, o.Card.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("read %v, want %v", got, tt.want)
			}
		})
	}
}

// TestObserveBothIndexCorners replays CCTV proc:15 seed 4838 round 1007,
// frame 3014: the dealer's 10♦, the last card of the row, read surely at
// both its index corners, whose centres agree; weak readings of other
// cards (a K♥ at 0.18, a 9♦ at 0.36) where the 3♥ beneath shows; and a
// 10♦ at 0.33 from a corner placed from its index alone, 10.5 mm along
// its top edge. The card read at both its corners stands where they put
// it: it is not an index borrowed from a corner that is not the card's
// (TestObserveBorrowedIndex), which the weak 10♦ would have made it.
func TestObserveBothIndexCorners(t *testing.T) {
	d := unreadDetector(t)
	// Each corner as monitor inspect printed it: its point and the angle
	// of its U, in degrees.
	readAs := func(card string, conf, x, y, deg float64) read {
		u := pt(math.Cos(deg*math.Pi/180), math.Sin(deg*math.Pi/180))
		return read{res: classify.Result{Card: cards.MustParse(card), Confidence: conf}, at: corner{P: pt(x, y), U: u, V: pt(-u.Y, u.X)}}
	}
	reads := []read{
		readAs("TD", 0.93, 71.5, 218.5, -179),
		readAs("TD", 0.90, 10.6, 129.4, 1),
		readAs("TD", 0.33, 21.1, 130.5, -0),
		readAs("KH", 0.18, -0.9, 129.9, -2),
		readAs("3H", 0.94, -9.9, 130.2, -2),
		readAs("9D", 0.36, 61.1, 218.2, -179),
	}
	var ten []Observation
	for _, o := range d.observe(reads, nil, nil, func(calibration.Point) bool { return true }) {
		if o.Card == cards.MustParse("TD") && o.Confidence >= Confident {
			ten = append(ten, o)
		}
	}
	want := pt(41, 174)
	if len(ten) != 1 || Dist(ten[0].Center, want) > 2 {
		t.Fatalf("sure readings of the 10♦: %+v; want one, at %v", ten, want)
	}
}
