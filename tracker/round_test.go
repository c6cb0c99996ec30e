package tracker

import (
	"slices"
	"strings"
	"testing"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/game"
)

func TestDropMisreads(t *testing.T) {
	c := func(s string, conf float64, sideways bool) Card {
		return Card{Card: cards.MustParse(s), Sighting: Sighting{Confidence: conf, Sideways: sideways}}
	}
	// spread lays the cards out as a dealer does, each 15 mm right of and
	// 17 mm above the one before, unless a card has a place of its own.
	spread := func(cs ...Card) []Card {
		for i := range cs {
			if cs[i].At == (calibration.Point{}) {
				cs[i].At = calibration.Point{X: float64(15 * i), Y: float64(400 - 17*i)}
			}
		}
		return cs
	}
	at := func(c Card, x, y float64) Card { c.At = calibration.Point{X: x, Y: y}; return c }
	tests := []struct {
		name       string
		in         []Card
		kept, gone string
	}{
		{"a doubtful card after the double", spread(c("2S", .9, false), c("7D", .9, false), c("5S", .9, true), c("QS", .36, false)), "2S 7D 5S", "QS"},
		{"a doubtful card before the double", spread(c("2S", .9, false), c("7D", .9, false), c("QS", .4, false), c("5S", .9, true)), "2S 7D 5S", "QS"},
		{"a clear card after the double stays", spread(c("2S", .9, false), c("7D", .9, false), c("5S", .9, true), c("QS", .8, false)), "2S 7D 5S QS", ""},
		{"two doubtful cards around a double", spread(c("2S", .9, false), c("3D", .4, false), c("7D", .9, false), c("5S", .9, true), c("QS", .4, false)), "2S 7D 5S", "3D QS"},
		{"a doubled hand of three stays", spread(c("2S", .9, false), c("7D", .4, false), c("5S", .9, true)), "2S 7D 5S", ""},
		{"a doubtful card after a bust", spread(c("TS", .9, false), c("6D", .9, false), c("9C", .9, false), c("4H", .4, false)), "TS 6D 9C", "4H"},
		{"a clear card after a bust stays", spread(c("TS", .9, false), c("6D", .9, false), c("9C", .9, false), c("4H", .7, false)), "TS 6D 9C 4H", ""},
		{"a doubtful card that busts stays", spread(c("TS", .9, false), c("6D", .9, false), c("9C", .4, false)), "TS 6D 9C", ""},
		{"a doubtful card in an ordinary hand stays", spread(c("TS", .9, false), c("2D", .4, false), c("5C", .9, false)), "TS 2D 5C", ""},
		// dondorf seed 1801 round 1005: a phantom sideways QS between the
		// two cards, taken for a double.
		{"a doubtful sideways card back among the hand", spread(at(c("9S", .98, false), -1, 408), at(c("6H", .93, false), 14, 393), at(c("QS", .41, true), 13, 420)), "9S 6H", "QS"},
		// Round 1000: a phantom 4C beside the third card, towards the split hand.
		{"a doubtful card level with the last", spread(at(c("4C", .96, false), -1, 410), at(c("AD", .97, false), 12, 390), at(c("3C", .97, false), 27, 376), at(c("4C", .36, false), 52, 405)), "4C AD 3C", "4C"},
		{"a clear card back among the hand stays", spread(at(c("9S", .98, false), -1, 408), at(c("6H", .93, false), 14, 393), at(c("QS", .8, true), 13, 420)), "9S 6H QS", ""},
		{"a doubtful sideways double further along stays", spread(c("9S", .98, false), c("2H", .93, false), c("QS", .41, true)), "9S 2H QS", ""},
		// Seed 1901 round 1005 (model v2): a phantom sideways QS behind a
		// split hand's first card, dealt before its second.
		{"a doubtful card behind the first", spread(at(c("2C", .9, false), -101, 410), at(c("QS", .38, true), -113, 400), at(c("QC", .9, false), -86, 393), at(c("7H", .9, false), -71, 375)), "2C QC 7H", "QS"},
		// Round 1003: a phantom 9S back under a double.
		{"a doubtful card back under the double", spread(at(c("8C", .9, false), 343, 348), at(c("2C", .9, false), 349, 328), at(c("8S", .9, true), 363, 298), at(c("9S", .45, false), 356, 314)), "8C 2C 8S", "9S"},
		{"cards in one place tell no direction", []Card{c("TS", .9, false), c("2D", .9, false), c("5C", .4, false)}, "TS 2D 5C", ""},
	}
	text := func(cs []Card) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Text())
		}
		return strings.Join(out, " ")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kept, gone := dropMisreads(tt.in)
			if text(kept) != tt.kept || text(gone) != tt.gone {
				t.Errorf("kept %q, dropped %q; want %q, %q", text(kept), text(gone), tt.kept, tt.gone)
			}
		})
	}
}

func TestTurnedInHand(t *testing.T) {
	hand := func(angles ...float64) []*track {
		var out []*track
		for _, a := range angles {
			out = append(out, &track{angle: a})
		}
		return out
	}
	tests := []struct {
		name string
		hand []*track
		i    int
		want bool
	}{
		// Seed 1901 round 1015: the double's 4H at 151°, the 3D and 6S
		// at 61° and 60°; the frames that saw the 4H did not see the 3D.
		{"a double across its hand", hand(61, 60, 151), 2, true},
		{"turned the other way round", hand(61, 60, -29), 2, true},
		{"a card along its hand", hand(61, 60, 75), 2, false},
		{"a pair says nothing", hand(61, 151), 1, false},
		{"the others disagree", hand(61, 150, 151), 2, false},
		{"the first card is not the double's", hand(151, 60, 61), 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := turnedInHand(tt.hand, tt.i); got != tt.want {
				t.Errorf("turnedInHand = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSettleDoubts checks the doubts settle raises about a hand it cannot
// trust whole, and that each lowers the hand's cards to doubtful: a hand
// of one card (its second was never seen: tigullio seed 2212 round 1023,
// a re-split hand at the picture's edge), and a hand or a dealer's row
// with a card that reached past the picture's edge (the dealer's row's
// own doubt, DealerDoubts).
func TestSettleDoubts(t *testing.T) {
	c := func(s string, clipped bool) Card {
		return Card{Card: cards.MustParse(s), Sighting: Sighting{Confidence: 0.95, Clipped: clipped}}
	}
	dealer := []Card{c("5C", false), c("KD", false), c("7D", false)}
	type hand struct {
		from  int
		cards []Card
	}
	tests := []struct {
		name   string
		hands  []hand
		dealer []Card
		doubt  string // "" for none
		low    bool   // the seat's cards lowered to doubtful
	}{
		{"two cards", []hand{{-1, []Card{c("TS", false), c("AD", false)}}}, dealer, "", false},
		{"a split hand of one card", []hand{
			{-1, []Card{c("2C", false), c("TH", false)}},
			{0, []Card{c("2H", false)}},
		}, dealer, "seat 1 hand 1: 1 card(s), but every hand takes two", true},
		{"a card past the picture's edge", []hand{{-1, []Card{c("2H", true), c("8H", false)}}}, dealer,
			"seat 1 hand 0: a card reaches past the picture's edge, where more of the hand's cards may lie unseen", true},
		{"a dealer card past the picture's edge", []hand{{-1, []Card{c("TS", false), c("9D", false)}}},
			[]Card{c("5C", false), c("KD", true), c("7D", false)},
			"a dealer card reaches past the picture's edge, where more of the dealer's cards may lie unseen", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := New(DefaultConfig(25), nil, game.DefaultRules())
			r := Round{Round: game.Round{Seats: []game.Seat{{Seat: 1}}}}
			for _, h := range tt.hands {
				r.Seats[0].Hands = append(r.Seats[0].Hands, game.Hand{SplitFrom: h.from})
			}
			r.setHandCards(0, -1, tt.dealer)
			for hi, h := range tt.hands {
				r.setHandCards(1, hi, h.cards)
			}
			tr.settle(&r)
			got := strings.Join(r.DoubtsAt(0), "; ")
			if got != tt.doubt {
				t.Errorf("doubts %q, want %q", got, tt.doubt)
			}
			low, dealerLow := false, false
			for p, c := range r.Cards() {
				if p.Seat == 1 {
					low = low || c.Confidence <= 0.5
				} else {
					dealerLow = dealerLow || c.Confidence <= 0.5
				}
			}
			if low != tt.low {
				t.Errorf("seat's cards lowered to doubtful: %v, want %v", low, tt.low)
			}
			if tt.doubt != "" && !tt.low && !dealerLow {
				t.Errorf("the dealer's cards not lowered to doubtful")
			}
			// A doubt about the dealer's cards alone is the dealer's
			// row's: it bears on no wager that does not turn on them,
			// and the record writes it with the round's.
			if dealerRow := tt.doubt != "" && !tt.low; dealerRow {
				if !slices.Equal(r.DealerDoubts, []string{tt.doubt}) || len(r.DoubtsOn(1, false)) > 0 {
					t.Errorf("the dealer's row's doubts %q, a seat's on no dealer card %q; want %q and none", r.DealerDoubts, r.DoubtsOn(1, false), tt.doubt)
				}
				if got := r.Record().Doubts; !slices.Equal(got, []string{tt.doubt}) {
					t.Errorf("the record's doubts %q, want %q", got, tt.doubt)
				}
			}
		})
	}
}

// TestDoubtReach checks which wagers a doubt about a hand bears on: seat
// 1's hand of one card (its second was never seen, or lies counted in a
// hand beside it) puts in doubt the seat's own wagers, a seat whose cards
// lie within three times HandMM (150 mm) of its card, and, where the
// dealer's row lies that close, the whole round.
func TestDoubtReach(t *testing.T) {
	at := func(s string, x, y float64) Card {
		return Card{Card: cards.MustParse(s), Sighting: Sighting{Confidence: 0.95, At: calibration.Point{X: x, Y: y}}}
	}
	const why = "seat 1 hand 0: 1 card(s), but every hand takes two"
	tests := []struct {
		name   string
		seat2  []Card
		seat3  []Card
		dealer []Card
		round  bool  // the doubt is the round's
		seats  []int // the seats whose wagers it bears on
	}{
		{"seats apart", []Card{at("9C", 300, 600), at("7D", 320, 600)}, []Card{at("KS", 600, 600), at("4H", 620, 600)},
			[]Card{at("5C", 0, 0), at("QD", 20, 0), at("2D", 40, 0)}, false, []int{1}},
		{"seat 2's last card 140 mm away", []Card{at("9C", 160, 600), at("7D", 140, 600)}, []Card{at("KS", 600, 600), at("4H", 620, 600)},
			[]Card{at("5C", 0, 0), at("QD", 20, 0), at("2D", 40, 0)}, false, []int{1, 2}},
		{"seat 2's nearest card 160 mm away", []Card{at("9C", 160, 600), at("7D", 180, 600)}, []Card{at("KS", 600, 600), at("4H", 620, 600)},
			[]Card{at("5C", 0, 0), at("QD", 20, 0), at("2D", 40, 0)}, false, []int{1}},
		{"the dealer's row beside it", []Card{at("9C", 300, 600), at("7D", 320, 600)}, []Card{at("KS", 600, 600), at("4H", 620, 600)},
			[]Card{at("5C", 0, 500), at("QD", 20, 500), at("2D", 40, 500)}, true, []int{1, 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := New(DefaultConfig(25), nil, game.DefaultRules())
			r := Round{Round: game.Round{Seats: []game.Seat{{Seat: 1, Hands: []game.Hand{{SplitFrom: -1}}}, {Seat: 2, Hands: []game.Hand{{SplitFrom: -1}}}, {Seat: 3, Hands: []game.Hand{{SplitFrom: -1}}}}}}
			r.setHandCards(0, -1, tt.dealer)
			r.setHandCards(1, 0, []Card{at("TS", 0, 600)})
			r.setHandCards(2, 0, tt.seat2)
			r.setHandCards(3, 0, tt.seat3)
			tr.settle(&r)
			if got := slices.Contains(r.Doubts, why); got != tt.round {
				t.Errorf("the round's doubts %q hold it: %v, want %v", r.Doubts, got, tt.round)
			}
			var seats []int
			for n := 1; n <= 3; n++ {
				if slices.Contains(r.DoubtsAt(n), why) {
					seats = append(seats, n)
				}
			}
			if !slices.Equal(seats, tt.seats) {
				t.Errorf("it bears on seats %v, want %v (seat doubts %v)", seats, tt.seats, r.SeatDoubts)
			}
			if all := r.DoubtsAt(0); !slices.Equal(all, []string{why}) {
				t.Errorf("every doubt: %q, want it once", all)
			}
			rec := r.Record()
			if got := rec.DoubtsAt(0); !slices.Equal(got, []string{why}) {
				t.Errorf("the record's doubts: %q, want it once", got)
			}
			for _, n := range []int{1, 2, 3} {
				if got, want := rec.DoubtsAt(n), r.DoubtsAt(n); !slices.Equal(got, want) {
					t.Errorf("the record's doubts at seat %d: %q, want %q", n, got, want)
				}
			}
		})
	}
}
