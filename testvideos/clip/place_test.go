package clip

import (
	"math"
	"slices"
	"testing"

	"bjmonitor/game"
	"bjmonitor/testvideos/scene"
)

// TestHandsFitTheFelt: at a table of any occupied seats where every seat
// splits as often as Room lets it, each card of every hand, up to six a
// hand, lies wholly inside the default camera's view; no two hands'
// first cards lie closer than handGap; and the cards two seats' hands
// may hold, up to six flat or a double sideways, lie at least footClear
// apart: the truth never asks for a card no camera can see, or one the
// generator laid on another player's cards. Room must also leave a seat
// its first split where the felt has room for it.
func TestHandsFitTheFelt(t *testing.T) {
	l, err := scene.NewLayout(scene.DefaultLayoutConfig())
	if err != nil {
		t.Fatal(err)
	}
	cc := scene.DefaultCameraConfig()
	cam, err := scene.NewCamera(cc)
	if err != nil {
		t.Fatal(err)
	}
	room := Room(l)
	const margin = 4 // px
	most := map[int]int{}
	for occupied := 1; occupied < 1<<len(l.Seats); occupied++ {
		var r game.Round
		for n := 1; n <= len(l.Seats); n++ {
			if occupied&(1<<(n-1)) != 0 {
				r.Seats = append(r.Seats, game.Seat{Seat: n, Hands: []game.Hand{{}}})
			}
		}
		for i := range r.Seats {
			// Split the latest hand that has room, as often as any has.
		split:
			for len(r.Seats[i].Hands) < 4 {
				for from := len(r.Seats[i].Hands) - 1; from >= 0; from-- {
					if room(&r, r.Seats[i].Seat, from) {
						r.Seats[i].Hands = append(r.Seats[i].Hands, game.Hand{SplitFrom: from})
						continue split
					}
				}
				break
			}
			most[r.Seats[i].Seat] = max(most[r.Seats[i].Seat], len(r.Seats[i].Hands))
		}
		slots, ok := handSlots(l, r.Seats)
		if !ok {
			t.Fatalf("seats %07b: Room allowed hands that handSlots cannot lay", occupied)
		}
		var firsts []scene.Point
		type foot struct {
			seat, hand int
			cards      [][4]scene.Point
		}
		var feet []foot
		for _, gs := range r.Seats {
			s := l.Seats[gs.Seat-1]
			if len(slots[gs.Seat]) != len(gs.Hands) {
				t.Fatalf("seats %07b: seat %d has %d hands, %d slots", occupied, gs.Seat, len(gs.Hands), len(slots[gs.Seat]))
			}
			for hand := range gs.Hands {
				for i := range 6 {
					pose := scene.Pose{Center: handCard(l, r.Seats, s, hand, i), RotDeg: s.FirstCard.RotDeg + 3}
					for _, p := range pose.Corners() {
						x, y := cam.Project(p)
						if x < margin || y < margin || x > float64(cc.Width-margin) || y > float64(cc.Height-margin) {
							t.Errorf("seats %07b: seat %d hand %d card %d: corner at (%.0f, %.0f) px is out of the %d×%d view", occupied, gs.Seat, hand, i, x, y, cc.Width, cc.Height)
						}
					}
				}
				c := handCard(l, r.Seats, s, hand, 0)
				for _, f := range firsts {
					if d := math.Hypot(f.X-c.X, f.Y-c.Y); d < handGap {
						t.Errorf("seats %07b: seat %d hand %d lies %.0f mm from another hand", occupied, gs.Seat, hand, d)
					}
				}
				firsts = append(firsts, c)
				f := foot{gs.Seat, hand, nil}
				for i := range 6 {
					f.cards = append(f.cards, scene.Pose{Center: handCard(l, r.Seats, s, hand, i), RotDeg: s.FirstCard.RotDeg}.Corners())
				}
				double := scene.Pose{Center: handCard(l, r.Seats, s, hand, 2).Add(s.Step.Scale(0.6)), RotDeg: s.FirstCard.RotDeg}
				f.cards = append(f.cards, scene.PlacedCard{Pose: double, Sideways: true}.EffectivePose().Corners())
				for _, o := range feet {
					if o.seat == f.seat {
						continue
					}
					for _, a := range f.cards {
						for _, b := range o.cards {
							if d := quadDistance(a, b); d < footClear {
								t.Fatalf("seats %07b: seat %d hand %d's cards lie %.1f mm from seat %d hand %d's", occupied, f.seat, f.hand, d, o.seat, o.hand)
							}
						}
					}
				}
				feet = append(feet, f)
			}
		}
	}
	// The most hands any seat gets: a seat alone at an end holds three
	// (its splits go towards the middle), one in the middle four.
	want := map[int]int{1: 3, 2: 4, 3: 4, 4: 4, 5: 4, 6: 4, 7: 3}
	for n, w := range want {
		if most[n] != w {
			t.Errorf("seat %d holds at most %d hands, want %d", n, most[n], w)
		}
	}
}

// TestHandSlots: the slots of the tables that gave impossible scenes
// before the generator knew the felt's room.
func TestHandSlots(t *testing.T) {
	l, err := scene.NewLayout(scene.DefaultLayoutConfig())
	if err != nil {
		t.Fatal(err)
	}
	seats := func(hands ...int) []game.Seat { // seat number, hands, ...: each split from the first
		var out []game.Seat
		for i := 0; i < len(hands); i += 2 {
			out = append(out, game.Seat{Seat: hands[i], Hands: make([]game.Hand, hands[i+1])})
		}
		return out
	}
	fromSecond := append(seats(3, 1), game.Seat{Seat: 4, Hands: []game.Hand{{SplitFrom: -1}, {SplitFrom: 0}, {SplitFrom: 1}}})
	tests := []struct {
		name  string
		seats []game.Seat
		want  map[int][]float64
		ok    bool
	}{
		{"one split", seats(4, 2), map[int][]float64{4: {0, 1}}, true},
		{"re-split at an end seat goes on towards the middle", seats(1, 3), map[int][]float64{1: {0, 1, 2}}, true},
		// dondorf seed 2213 round 1067: seat 1's fourth hand lay on seat
		// 2's, its third beyond the picture.
		{"no room past a neighbour", seats(1, 3, 2, 1), map[int][]float64{1: {0, 1, 2}, 2: {0}}, false},
		// A seat's split hand goes away from an occupied neighbour:
		// hands drift one way as they grow, and a double reaches 44 mm
		// past its hand's middle. Tigullio seed 2236 round 1003: seat 6's
		// split hand lay 77 mm from seat 5's first card, and its double
		// lay on seat 5's cards.
		{"a split goes away from a neighbour", seats(5, 1, 6, 2), map[int][]float64{5: {0}, 6: {0, -1}}, true},
		{"neighbours split apart", seats(3, 2, 4, 2), map[int][]float64{3: {0, 1}, 4: {0, -1}}, true},
		{"an end seat has no room beside an occupied neighbour", seats(1, 2, 2, 1), map[int][]float64{1: {0, 1}, 2: {0}}, false},
		{"an end seat's split with its neighbour's seat empty", seats(1, 2, 3, 2), map[int][]float64{1: {0, 1}, 3: {0, -1}}, true},
		{"a re-split goes next to the hand it came from", fromSecond[1:], map[int][]float64{4: {0, 1, 2}}, true},
		{"with a neighbour there, every split goes away from it", fromSecond, map[int][]float64{3: {0}, 4: {0, -1, -2}}, true},
		{"four hands at an end seat, with no room: the last past the end", seats(7, 4), map[int][]float64{7: {0, 1, 2, -1}}, false},
		{"four hands between empty seats", seats(2, 1, 4, 4, 6, 1), map[int][]float64{2: {0}, 4: {0, 1, -1, -2}, 6: {0}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := handSlots(l, tt.seats)
			if ok != tt.ok {
				t.Errorf("ok = %v, want %v", ok, tt.ok)
			}
			for n, w := range tt.want {
				if !slices.Equal(got[n], w) {
					t.Errorf("seat %d: slots %v, want %v", n, got[n], w)
				}
			}
		})
	}
}

// quadDistance is the distance between two convex quadrilaterals given
// corner by corner in order: 0 where they touch or overlap.
func quadDistance(a, b [4]scene.Point) float64 {
	inside := func(p scene.Point, q [4]scene.Point) bool {
		pos, neg := false, false
		for i := range q {
			e, f := q[(i+1)%4], q[i]
			c := (e.X-f.X)*(p.Y-f.Y) - (e.Y-f.Y)*(p.X-f.X)
			pos, neg = pos || c > 0, neg || c < 0
		}
		return !(pos && neg)
	}
	toSegment := func(p, s0, s1 scene.Point) float64 {
		dx, dy := s1.X-s0.X, s1.Y-s0.Y
		t := max(0, min(1, ((p.X-s0.X)*dx+(p.Y-s0.Y)*dy)/(dx*dx+dy*dy)))
		return math.Hypot(p.X-s0.X-t*dx, p.Y-s0.Y-t*dy)
	}
	cross := func(p0, p1, q0, q1 scene.Point) bool {
		side := func(a, b, c scene.Point) float64 { return (b.X-a.X)*(c.Y-a.Y) - (b.Y-a.Y)*(c.X-a.X) }
		return side(p0, p1, q0)*side(p0, p1, q1) < 0 && side(q0, q1, p0)*side(q0, q1, p1) < 0
	}
	for i := range a {
		for j := range b {
			if cross(a[i], a[(i+1)%4], b[j], b[(j+1)%4]) {
				return 0
			}
		}
	}
	d := math.Inf(1)
	for _, pq := range [2][2][4]scene.Point{{a, b}, {b, a}} {
		p, q := pq[0], pq[1]
		for _, c := range p {
			if inside(c, q) {
				return 0
			}
			for i := range q {
				d = min(d, toSegment(c, q[i], q[(i+1)%4]))
			}
		}
	}
	return d
}
