package vision

import (
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/vision/classify"
)

// unreadDetector is a detector on a camera that sees the table square on,
// for tests of observe and cardShapes without a model.
func unreadDetector(t *testing.T) *Detector {
	t.Helper()
	var pts []calibration.Correspondence
	for _, p := range []calibration.Point{{X: -200, Y: -200}, {X: 200, Y: -200}, {X: 200, Y: 200}, {X: -200, Y: 200}, {X: 0, Y: -100}, {X: 100, Y: 0}, {X: 0, Y: 100}, {X: -100, Y: 0}} {
		pts = append(pts, calibration.Correspondence{Table: p, X: 500 + p.X, Y: 500 + p.Y})
	}
	cal, err := calibration.FromCorrespondences(&calibration.Table{ImageWidth: 1000, ImageHeight: 1000}, pts)
	if err != nil {
		t.Fatal(err)
	}
	return &Detector{cal: cal, opts: DefaultOptions()}
}

// The two index corners of a card lying upright, its top left at the
// origin: the top left's edges run right and down, the bottom right's
// left and up.
var (
	topLeftAt     = corner{P: pt(0, 0), U: pt(1, 0), V: pt(0, 1)}
	bottomRightAt = corner{P: pt(cardW, cardH), U: pt(-1, 0), V: pt(0, -1)}
	uprightCard   = cardShape{centre: pt(cardW/2, cardH/2), v: pt(0, 1)}
)

// TestObserveUnreadCard: a card the outline shows whose corners read as
// no card, or as one below Unreadable, is observed unread, where it lies;
// a card read, or read as a back, is observed as before; a shape whose
// corners the model was never shown is no card, nor is one closer to a
// card read than a hand's cards lie to each other (dondorf seed 2301
// round 1005, where the edges of seat 1's AH, AD and 9S made one a
// quarter turned, 13 mm from the AH).
func TestObserveUnreadCard(t *testing.T) {
	d := unreadDetector(t)
	nine := cards.MustParse("9D")
	res := func(c cards.Card, conf float64) classify.Result {
		return classify.Result{Card: c, Confidence: conf}
	}
	back := classify.Result{Back: true, Confidence: 0.9}
	none := res(cards.Card{}, 0.97)
	tests := []struct {
		name       string
		tl, br     classify.Result
		shapes     []cardShape
		want       cards.Card
		wantN      int
		wantDown   bool
		wantUnread bool
		extra      []read // more cards' corners
	}{
		{"read as no card", none, none, []cardShape{uprightCard}, cards.Card{}, 1, false, true, nil},
		{"read below Unreadable", res(nine, 0.2), none, []cardShape{uprightCard}, cards.Card{}, 1, false, true, nil},
		{"read below Unreadable at both corners", res(nine, 0.3), res(nine, 0.25), []cardShape{uprightCard}, cards.Card{}, 1, false, true, nil},
		{"read at Unreadable", res(nine, Unreadable), none, []cardShape{uprightCard}, nine, 1, false, false, nil},
		{"read surely", res(nine, 0.95), res(nine, 0.96), []cardShape{uprightCard}, nine, 1, false, false, nil},
		{"read as a back", back, back, []cardShape{uprightCard}, cards.Card{}, 1, true, false, nil},
		{"one corner read as a back: face down, as before", back, none, []cardShape{uprightCard}, cards.Card{}, 0, false, false, nil},
		{"no shape: nothing, as before", none, none, nil, cards.Card{}, 0, false, false, nil},
		{"a shape whose corners were not shown", none, none, []cardShape{{centre: pt(200, 0), v: pt(0, 1)}}, cards.Card{}, 0, false, false, nil},
		// The next card of a hand, read, 22 mm on, or 13 mm on: there
		// the shape is made of the edges where the hand's cards overlap.
		{"a card read a hand's step away", none, none, []cardShape{uprightCard}, cards.Card{}, 2, false, true, []read{{res: res(nine, 0.95), at: corner{P: pt(14, -17), U: pt(1, 0), V: pt(0, 1)}}}},
		{"a card read 13 mm away", none, none, []cardShape{uprightCard}, nine, 1, false, false, []read{{res: res(nine, 0.95), at: corner{P: pt(8, -10), U: pt(1, 0), V: pt(0, 1)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reads := append([]read{{res: tt.tl, at: topLeftAt}, {res: tt.br, at: bottomRightAt}}, tt.extra...)
			got := d.observe(reads, tt.shapes, nil, func(calibration.Point) bool { return true })
			if len(got) != tt.wantN {
				t.Fatalf("%d observations, want %d: %+v", len(got), tt.wantN, got)
			}
			// The card under test is the one nearest the shape's centre.
			var o Observation
			best := 1e9
			for _, g := range got {
				if dd := Dist(g.Center, calibration.Point{X: cardW / 2, Y: cardH / 2}); dd < best {
					o, best = g, dd
				}
			}
			if tt.wantN == 0 {
				return
			}
			if o.Card != tt.want || o.FaceDown != tt.wantDown {
				t.Errorf("observed %v face down %v, want %v face down %v", o.Card, o.FaceDown, tt.want, tt.wantDown)
			}
			if unread := !o.Card.Valid() && !o.FaceDown; unread != tt.wantUnread {
				t.Errorf("unread %v, want %v", unread, tt.wantUnread)
			}
			if c := (calibration.Point{X: cardW / 2, Y: cardH / 2}); Dist(o.Center, c) > 1 && tt.extra == nil {
				t.Errorf("centre %v, want %v", o.Center, c)
			}
			if tt.wantUnread && o.Confidence != 0 {
				t.Errorf("confidence %v, want 0", o.Confidence)
			}
		})
	}
}

// TestMergeUnreadNearRead: an unread card one zone saw closer to a card
// another zone read than a hand's cards lie is dropped when the zones'
// observations are merged; one a hand's step away stays.
func TestMergeUnreadNearRead(t *testing.T) {
	read := Observation{Card: cards.MustParse("AH"), Confidence: 0.97, Center: calibration.Point{X: 504, Y: 274}}
	tests := []struct {
		name string
		at   calibration.Point
		want int
	}{
		{"13 mm away", calibration.Point{X: 514, Y: 266}, 1},
		{"a hand's step away", calibration.Point{X: 518, Y: 257}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &Detector{zones: []*zone{{obs: []Observation{read}}, {obs: []Observation{{Center: tt.at}}}}}
			if got := d.merge(); len(got) != tt.want {
				t.Errorf("%d cards, want %d: %+v", len(got), tt.want, got)
			}
		})
	}
}

// TestMergeRankOnly: where one zone knows a card by its rank alone and
// another reads it whole, the whole reading stands, however sure, with
// the rank counted: where it read another rank, for review.
func TestMergeRankOnly(t *testing.T) {
	at := calibration.Point{X: 504, Y: 274}
	counted := Observation{Card: cards.Card{Rank: cards.Eight}, Confidence: pipCount, Center: at}
	tests := []struct {
		name  string
		other Observation
		want  cards.Card
		conf  float64
	}{
		{"read whole, doubtfully", Observation{Card: cards.MustParse("8H"), Confidence: 0.55, Center: at}, cards.MustParse("8H"), 0.55},
		{"read whole, surely", Observation{Card: cards.MustParse("8H"), Confidence: 0.95, Center: at}, cards.MustParse("8H"), 0.95},
		{"read as another rank, doubtfully", Observation{Card: cards.MustParse("9H"), Confidence: 0.55, Center: at}, cards.MustParse("8H"), 0.55},
		{"read as another rank, surely", Observation{Card: cards.MustParse("9H"), Confidence: 0.95, Center: at}, cards.MustParse("8H"), pipDoubt},
		{"unread", Observation{Center: at}, cards.Card{Rank: cards.Eight}, pipCount},
	}
	for _, tt := range tests {
		for _, order := range [][2]Observation{{counted, tt.other}, {tt.other, counted}} {
			d := &Detector{zones: []*zone{{obs: order[:1]}, {obs: order[1:]}}}
			got := d.merge()
			if len(got) != 1 || got[0].Card != tt.want || got[0].Confidence != tt.conf {
				t.Errorf("%s, %v first: %+v, want %v at %v", tt.name, order[0].Card, got, tt.want, tt.conf)
			}
		}
	}
}

// TestCardShapes: the paper shows a card by its two index corners, facing
// each other across it, or as a lone card's rectangle, where paper covers
// its face and its corners; the outline of a box printed on the felt,
// corners that are not one card's, a card whose corner lies out on the
// felt, and paper too small are no card.
func TestCardShapes(t *testing.T) {
	const r = 2.0 // px a mm, as DefaultOptions
	d := unreadDetector(t)
	// The card lies 10 mm in from the zone's corner; a printed box's
	// line is 3 mm wide; felt reaches 25 mm into the card at its top
	// right corner where it is cut.
	solid := cardCorners(cardW/2+10, cardH/2+10, 0, r)
	inner := []calibration.Point{pt(13*r, 13*r), pt((cardW+7)*r, 13*r), pt((cardW+7)*r, (cardH+7)*r), pt(13*r, (cardH+7)*r)}
	at := func(c corner) read { return read{at: corner{P: c.P.Add(pt(10, 10)), U: c.U, V: c.V}} }
	shifted := corner{P: pt(cardW, cardH+30), U: pt(-1, 0), V: pt(0, -1)}
	lone := cardShape{centre: pt(cardW/2+10, cardH/2+10), v: pt(0, 1)}
	cut := []calibration.Point{pt((cardW-15)*r, 9*r), pt((cardW+11)*r, 9*r), pt((cardW+11)*r, 35*r)}
	tests := []struct {
		name  string
		box   bool // a printed box, hollow, not a card
		cut   bool // felt, not paper, at the card's top right corner
		reads []read
		lone  []cardShape
		want  int
	}{
		{"a card's index corners", false, false, []read{at(topLeftAt), at(bottomRightAt)}, nil, 1},
		{"one index corner", false, false, []read{at(topLeftAt)}, nil, 0},
		{"two top-left corners", false, false, []read{at(topLeftAt), at(corner{P: pt(0, 20), U: pt(1, 0), V: pt(0, 1)})}, nil, 0},
		{"opposite corners of no one card", false, false, []read{at(topLeftAt), at(shifted)}, nil, 0},
		{"a printed box's corners", true, false, []read{at(topLeftAt), at(bottomRightAt)}, nil, 0},
		{"index corners of a card with a corner on the felt", false, true, []read{at(topLeftAt), at(bottomRightAt)}, nil, 0},
		{"a lone rectangle with a corner on the felt", false, true, nil, []cardShape{lone}, 0},
		{"a lone card's rectangle", false, false, nil, []cardShape{lone}, 1},
		{"a lone printed box", true, false, nil, []cardShape{lone}, 0},
		{"a lone card, and its index corners", false, false, []read{at(topLeftAt), at(bottomRightAt)}, []cardShape{lone}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z := &zone{mask: gocv.NewMatWithSize(int(120*r), int(100*r), gocv.MatTypeCV8U), filled: gocv.NewMatWithSize(int(120*r), int(100*r), gocv.MatTypeCV8U)}
			defer z.mask.Close()
			defer z.filled.Close()
			z.mask.SetTo(gocv.NewScalar(0, 0, 0, 0))
			z.filled.SetTo(gocv.NewScalar(0, 0, 0, 0))
			fillMask(&z.mask, solid[:], true)
			fillMask(&z.filled, solid[:], true) // fillBlobs fills a box's outline too
			if tt.box {
				fillMask(&z.mask, inner, false)
			}
			if tt.cut {
				fillMask(&z.mask, cut, false)
				fillMask(&z.filled, cut, false)
			}
			z.reads, z.lone = tt.reads, tt.lone
			got := d.cardShapes(z)
			if len(got) != tt.want {
				t.Errorf("%d shapes, want %d: %+v", len(got), tt.want, got)
			}
		})
	}
}
