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
// hand, lies wholly inside the default camera's view, and no two hands'
// first cards lie closer than handGap: the truth never asks for a card no
// camera can see, or one the generator laid on another hand. Room must
// also leave a seat its first split where the felt has room for it.
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
		{"neighbours split the same way", seats(3, 2, 4, 2), map[int][]float64{3: {0, 1}, 4: {0, 1}}, true},
		{"an end seat's neighbour splits away from it", seats(1, 2, 2, 2), map[int][]float64{1: {0, 1}, 2: {0, -1}}, true},
		{"a re-split goes next to the hand it came from", fromSecond[1:], map[int][]float64{4: {0, 1, 2}}, true},
		{"or two offsets away when a neighbour is there", fromSecond, map[int][]float64{3: {0}, 4: {0, 1, -1}}, true},
		{"four hands at an end seat, with no room: the last past the end", seats(7, 4), map[int][]float64{7: {0, 1, 2, -1}}, false},
		{"four hands between empty seats", seats(2, 1, 4, 4, 6, 1), map[int][]float64{2: {0}, 4: {0, 1, -1, 2}, 6: {0}}, true},
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
