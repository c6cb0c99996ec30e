package deal

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/game"
)

// fixed deals a prepared sequence of cards.
type fixed struct {
	tb    testing.TB
	cards []cards.Card
}

func (f *fixed) Next() cards.Card {
	if len(f.cards) == 0 {
		f.tb.Fatal("the prepared shoe ran out")
	}
	c := f.cards[0]
	f.cards = f.cards[1:]
	return c
}

func shoeOf(tb testing.TB, s string) *fixed {
	cs, err := cards.ParseList(s)
	if err != nil {
		tb.Fatal(err)
	}
	return &fixed{tb: tb, cards: cs}
}

func TestPlayScripted(t *testing.T) {
	fb := game.DefaultRules()
	tests := []struct {
		name   string
		rules  game.Rules
		shoe   string // in dealing order
		want   string // the round as "dealer | seat hands" for one seat
		lammer int
	}{
		{
			name:  "7-7 split vs 6, a 7 on the first split hand",
			rules: fb,
			// p1 7H, up 6S, p2 7D, hole TC; split: H0 gets 7S -> re-split, H0 gets 4C (11) double KC
			shoe: "7H 6S 7D TC 7S 4C KC 9D 2H 8S 5D",
			want: "6S TC 5D | 7H 4C KC (double) / 7D 2H 8S (double) split:0 / 7S 9D split:0",
		},
		{
			name:  "hit and bust, dealer draws nothing",
			rules: fb,
			shoe:  "TH 9S 6D 8C 9C",
			want:  "9S 8C | TH 6D 9C",
		},
		{
			name:  "dealer blackjack ends the round",
			rules: fb,
			shoe:  "5H AS 5D KC",
			want:  "AS KC | 5H 5D",
		},
		{
			name:  "no hole card: the dealer's second card comes last",
			rules: game.Rules{Variant: game.Classic, Decks: 6, HitSoft17: true},
			shoe:  "TH 9S 8D 7C 5H",
			want:  "9S 7C 5H | TH 8D",
		},
		{
			name:  "split aces take one card each",
			rules: fb,
			shoe:  "AH 6S AD TC 5C 9D 5D",
			want:  "6S TC 5D | AH 5C / AD 9D split:0",
		},
		{
			name:  "player blackjack: the dealer turns the hole card and stops",
			rules: fb,
			shoe:  "AH 6S KD TC",
			want:  "6S TC | AH KD",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, steps := Play(shoeOf(t, tt.shoe), tt.rules, []int{1})
			if err := r.Validate(); err != nil {
				t.Fatalf("invalid round: %v", err)
			}
			if got := describe(r); got != tt.want {
				t.Errorf("Play = %q, want %q", got, tt.want)
			}
			checkSteps(t, r, steps)
		})
	}
}

// TestPlayRoom: a felt without room for another hand turns a split into
// playing the pair's total, and Room sees the round as dealt so far.
func TestPlayRoom(t *testing.T) {
	const shoe = "7H 6S 7D TC 7S 4C KC 9D 2H 8S 5D"
	tests := []struct {
		name  string
		hands int // room for this many hands at the seat
		want  string
		asked []int // hands the seat had at each call of Room (a pair only)
		from  []int // the hand it asked for
	}{
		{"room for four", 4, "6S TC 5D | 7H 4C KC (double) / 7D 2H 8S (double) split:0 / 7S 9D split:0", []int{1, 2}, []int{0, 0}},
		{"room for two: the 7-7 of the split hand is played as 14", 2, "6S TC 9D | 7H 7S / 7D 4C KC (double) split:0", []int{1, 2}, []int{0, 0}},
		{"room for one: no split", 1, "6S TC 7S | 7H 7D", []int{1}, []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked, from []int
			room := func(r *game.Round, seat, hand int) bool {
				if seat != 1 {
					t.Errorf("Room asked about seat %d", seat)
				}
				n := len(r.Seats[seatIndex(*r, seat)].Hands)
				asked, from = append(asked, n), append(from, hand)
				return n < tt.hands
			}
			r, steps := PlayRoom(shoeOf(t, shoe), game.DefaultRules(), []int{1}, room)
			if err := r.Validate(); err != nil {
				t.Fatalf("invalid round: %v", err)
			}
			if got := describe(r); got != tt.want {
				t.Errorf("PlayRoom = %q, want %q", got, tt.want)
			}
			if !reflect.DeepEqual(asked, tt.asked) || !reflect.DeepEqual(from, tt.from) {
				t.Errorf("Room saw %v hands, splitting %v, want %v splitting %v", asked, from, tt.asked, tt.from)
			}
			checkSteps(t, r, steps)
		})
	}
}

func describe(r game.Round) string {
	out := ""
	for i, c := range r.Dealer.Cards {
		if i > 0 {
			out += " "
		}
		out += c.String()
	}
	out += " |"
	for i, h := range r.Seats[0].Hands {
		if i > 0 {
			out += " /"
		}
		for _, c := range h.Cards {
			out += " " + c.String()
		}
		if h.Doubled {
			out += " (double)"
		}
		if h.SplitFrom >= 0 {
			out += " split:" + string(rune('0'+h.SplitFrom))
		}
	}
	return out
}

// checkSteps replays the steps and checks they build exactly the round.
func checkSteps(t *testing.T, r game.Round, steps []Step) {
	t.Helper()
	var dealer []cards.Card
	hands := map[int][][]cards.Card{}
	for _, st := range steps {
		if st.Seat == 0 {
			if st.Kind != Reveal {
				dealer = append(dealer, st.Card)
			}
			continue
		}
		hs := hands[st.Seat]
		switch st.Kind {
		case Initial:
			if len(hs) == 0 {
				hs = [][]cards.Card{nil}
			}
			hs[0] = append(hs[0], st.Card)
		case SplitMove:
			for len(hs) <= st.Hand {
				hs = append(hs, nil)
			}
			hs[st.Hand] = []cards.Card{st.Card}
			from := r.Seats[seatIndex(r, st.Seat)].Hands[st.Hand].SplitFrom
			hs[from] = hs[from][:1]
		case Hit, DoubleCard, SplitCard:
			hs[st.Hand] = append(hs[st.Hand], st.Card)
		}
		hands[st.Seat] = hs
	}
	if !reflect.DeepEqual(dealer, r.Dealer.Cards) {
		t.Errorf("steps give the dealer %v, the round %v", dealer, r.Dealer.Cards)
	}
	for _, s := range r.Seats {
		for i, h := range s.Hands {
			if !reflect.DeepEqual(hands[s.Seat][i], h.Cards) {
				t.Errorf("seat %d hand %d: steps give %v, the round %v", s.Seat, i, hands[s.Seat][i], h.Cards)
			}
		}
	}
}

func seatIndex(r game.Round, n int) int {
	for i, s := range r.Seats {
		if s.Seat == n {
			return i
		}
	}
	return -1
}

func TestPlayInvariants(t *testing.T) {
	for _, rules := range []game.Rules{
		game.DefaultRules(),
		{Variant: game.Classic, Decks: 8, HitSoft17: false, HoleCard: false},
	} {
		shoe := NewShoe(rules.Decks, rand.New(rand.NewPCG(1, 2)))
		splits, doubles := 0, 0
		for n := 0; n < 20000; n++ {
			if shoe.PastCut() {
				shoe.Shuffle()
			}
			r, steps := Play(shoe, rules, []int{1, 2, 4, 7})
			if err := r.Validate(); err != nil {
				t.Fatalf("round %d invalid: %v", n, err)
			}
			for _, s := range r.Seats {
				if len(s.Hands) > MaxHands {
					t.Fatalf("round %d seat %d has %d hands", n, s.Seat, len(s.Hands))
				}
				splits += len(s.Hands) - 1
				for _, h := range s.Hands {
					if h.Doubled {
						doubles++
					}
				}
			}
			d := r.Dealer.Cards
			if len(d) >= 2 && rules.DealerHits(d) && standing(r) && !cards.IsBlackjack(d) {
				t.Fatalf("round %d: dealer stopped on %v", n, d)
			}
			checkSteps(t, r, steps)
		}
		if splits == 0 || doubles == 0 {
			t.Errorf("%s: %d splits and %d doubles in 20000 rounds; the strategy never splits or doubles", rules.Variant, splits, doubles)
		}
	}
}

func standing(r game.Round) bool {
	p := player{round: r}
	return p.anyStanding()
}

func TestPlayDeterministic(t *testing.T) {
	play := func() []game.Round {
		shoe := NewShoe(6, rand.New(rand.NewPCG(42, 0)))
		var out []game.Round
		for range 50 {
			r, _ := Play(shoe, game.DefaultRules(), []int{1, 2, 3})
			out = append(out, r)
		}
		return out
	}
	if !reflect.DeepEqual(play(), play()) {
		t.Error("the same seed dealt different rounds")
	}
}
