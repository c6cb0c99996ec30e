package game_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/game"
	"bjmonitor/game/gametest"
)

// seat builds seat 1 from one spec per hand (see gametest.Seat).
func seat(tb testing.TB, specs ...string) game.Seat {
	tb.Helper()
	return gametest.Seat(tb, 1, specs...)
}

func list(cs []cards.Card) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.String()
	}
	return strings.Join(out, " ")
}

func TestReceived(t *testing.T) {
	tests := []struct {
		name  string
		hands []string
		want  string
	}{
		{"no split", []string{"7S 7C 7H"}, "7S 7C 7H"},
		{"split", []string{"7S 5D", "7C 9H split:0"}, "7S 7C 5D"},
		{"re-split of the first hand", []string{"7S 4D", "7C 9H split:0", "7H TS split:0"}, "7S 7C 7H 4D"},
		{"re-split of the second hand", []string{"8S 3D TC", "8C 8H split:0", "8D 2S split:1"}, "8S 8C 3D TC"},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := seat(t, tt.hands...)
			if got := list(s.Received()); got != tt.want {
				t.Errorf("Received() = %q, want %q", got, tt.want)
			}
			for _, p := range s.ReceivedAt() {
				if p.Seat != s.Seat {
					t.Errorf("ReceivedAt() place %+v, want seat %d", p, s.Seat)
				}
			}
		})
	}
}

// TestWithCard: the copy holds the card at its place, and the round it
// was made from is as it was.
func TestWithCard(t *testing.T) {
	r := game.Round{
		Dealer: game.Dealer{Cards: []cards.Card{cards.MustParse("TS"), cards.MustParse("4D")}},
		Seats:  []game.Seat{seat(t, "8S 3D", "8C 9H split:0")},
	}
	tests := []struct {
		p            game.Place
		dealer, hand string // the copy's dealer row and seat 1 hand 1
	}{
		{game.Place{Hand: -1, Card: 1}, "TS 7H", "8C 9H"},
		{game.Place{Seat: 1, Hand: 1, Card: 1}, "TS 4D", "8C 7H"},
		{game.Place{Seat: 2, Hand: 0, Card: 0}, "TS 4D", "8C 9H"}, // no such seat
		{game.Place{Hand: -1, Card: 5}, "TS 4D", "8C 9H"},         // no such card
	}
	for _, tt := range tests {
		g := r.WithCard(tt.p, cards.MustParse("7H"))
		if got := list(g.Dealer.Cards); got != tt.dealer {
			t.Errorf("%+v: dealer %q, want %q", tt.p, got, tt.dealer)
		}
		if got := list(g.Seats[0].Hands[1].Cards); got != tt.hand {
			t.Errorf("%+v: seat 1 hand 1 %q, want %q", tt.p, got, tt.hand)
		}
	}
	if got := list(r.Dealer.Cards) + " / " + list(r.Seats[0].Hands[1].Cards); got != "TS 4D / 8C 9H" {
		t.Errorf("the round changed: %s", got)
	}
}

// TestForAll: every combination of the choices is tried, and the first
// round the test fails on ends it.
func TestForAll(t *testing.T) {
	r := game.Round{Dealer: game.Dealer{Cards: cards.Deck()[:3]}}
	at := []game.Place{{Hand: -1, Card: 0}, {Hand: -1, Card: 2}}
	choices := func(game.Place) []cards.Card {
		return []cards.Card{cards.MustParse("2H"), cards.MustParse("3S"), cards.MustParse("4D")}
	}
	var seen []string
	all := r.ForAll(at, choices, func(g game.Round) bool {
		seen = append(seen, list(g.Dealer.Cards))
		return true
	})
	if !all || len(seen) != 9 || seen[0] != "2H AH 2H" || seen[8] != "4D AH 4D" {
		t.Errorf("ForAll = %v over %q, want true over the 9 rounds", all, seen)
	}
	n := 0
	if r.ForAll(at, choices, func(g game.Round) bool { n++; return g.Dealer.Cards[2] != cards.MustParse("3S") }) || n != 2 {
		t.Errorf("ForAll stopped after %d rounds, want false after 2", n)
	}
	if got := list(r.Dealer.Cards); got != "AS AH AD" {
		t.Errorf("the round changed: %s", got)
	}
}

func TestLammers(t *testing.T) {
	tests := []struct {
		name  string
		hands []string
		want  int
	}{
		{"free double on hard 11", []string{"6S 5D TC double"}, 1},
		{"paid double on soft 17", []string{"AS 6D 3C double"}, 0},
		{"paid double on hard 12", []string{"7S 5D 3C double"}, 0},
		{"hit on 11, no double", []string{"6S 5D TC"}, 0},
		{"free split", []string{"8S 3D", "8C TH split:0"}, 1},
		{"free split then free doubles", []string{"8S 3D TC double", "8C 2H 9S double split:0"}, 3},
		{"re-splits to four hands, each doubled", []string{"8S 3D TC double", "8C 3H 2S double split:0", "8H 2C 5S double split:0", "8D 3S 9C double split:1"}, 7},
		{"ten-value split is not free", []string{"KS 9D", "QC TH split:0"}, 0},
		{"aces split", []string{"AS 9D", "AC KH split:0"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := seat(t, tt.hands...)
			r := game.Round{Seats: []game.Seat{s}}
			if err := r.Validate(); err != nil {
				t.Fatalf("test round invalid: %v", err)
			}
			if v := r.Violations(game.DefaultRules()); len(v) > 0 {
				t.Fatalf("test round breaks the rules: %v", v)
			}
			if got := s.Lammers(); got != tt.want {
				t.Errorf("Lammers() = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		hands []string
		ok    bool
	}{
		{"plain", []string{"TS 6D 5C"}, true},
		{"split", []string{"8S 3D", "8C TH split:0"}, true},
		{"split from itself", []string{"8S 3D", "8C TH split:1"}, false},
		{"split from a later hand", []string{"8S 3D", "8C TH split:2", "8H 2C split:0"}, false},
		{"first hand split from another", []string{"8S 3D split:0"}, false},
		// Validate leaves the rules to Violations.
		{"card after bust", []string{"TS 6D 8C 2H"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := game.Round{Seats: []game.Seat{seat(t, tt.hands...)}}.Validate()
			if (err == nil) != tt.ok {
				t.Errorf("Validate() = %v, want ok %v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, game.ErrRound) {
				t.Errorf("Validate() = %v, does not wrap game.ErrRound", err)
			}
		})
	}
	dup := game.Round{Seats: []game.Seat{seat(t, "TS 6D"), seat(t, "9S 9D")}}
	if err := dup.Validate(); !errors.Is(err, game.ErrRound) {
		t.Errorf("Validate() of a seat listed twice = %v, want game.ErrRound", err)
	}
	unread := game.Round{Dealer: game.Dealer{Cards: []cards.Card{{}, cards.MustParse("TS")}}}
	if err := unread.Validate(); err != nil {
		t.Errorf("Validate() of a dealer card never read = %v, want nil", err)
	}
	bad := game.Round{Dealer: game.Dealer{Cards: []cards.Card{{Rank: 14, Suit: cards.Spades}}}}
	if err := bad.Validate(); !errors.Is(err, game.ErrRound) {
		t.Errorf("Validate() of rank 14 = %v, want game.ErrRound", err)
	}
}

func TestViolations(t *testing.T) {
	tests := []struct {
		name   string
		dealer string
		hands  []string
		want   []game.Violation
	}{
		{"plain", "TS 7D", []string{"TS 6D 5C"}, nil},
		{"doubled with two cards", "TS 7D", []string{"6S 5D double"}, []game.Violation{
			{Seat: 1, Hand: 0, Rule: game.DoubleTakesOne, Text: "seat 1 hand 0: doubled with 2 cards", Cards: places(1, 0, 2)},
		}},
		{"doubled with four cards", "TS 7D", []string{"2S 3D 4C 5H double"}, []game.Violation{
			{Seat: 1, Hand: 0, Rule: game.DoubleTakesOne, Text: "seat 1 hand 0: doubled with 4 cards", Cards: places(1, 0, 4)},
		}},
		{"card after bust", "TS 7D", []string{"TS 6D 8C 2H"}, []game.Violation{
			{Seat: 1, Hand: 0, Rule: game.NoCardAfterBust, Text: "seat 1 hand 0: a card came after the hand busted", Cards: places(1, 0, 4)},
		}},
		{"split of no pair", "TS 7D", []string{"8S 3D", "9C TH split:0"}, []game.Violation{
			{Seat: 1, Hand: 1, Rule: game.SplitNeedsPair, Text: "seat 1 hand 1: split from 8S and 9C, which are no pair", Cards: []game.Place{{1, 0, 0}, {1, 1, 0}}},
		}},
		{"kings and queens split", "TS 7D", []string{"KS 3D", "QC TH split:0"}, nil},
		{"a hand of one card", "TS 7D", []string{"8S 3D", "8C split:0"}, []game.Violation{
			{Seat: 1, Hand: 1, Rule: game.TwoCards, Text: "seat 1 hand 1: 1 card(s), but every hand takes two", Cards: places(1, 1, 1)},
		}},
		{"dealer drew on 18", "TS 8D 2C", []string{"TS 9D"}, []game.Violation{
			{Hand: -1, Rule: game.DealerStands, Text: "the dealer drew on 18", Cards: places(0, -1, 3)},
		}},
		{"dealer stopped on soft 17", "AS 6D", []string{"TS 9D"}, []game.Violation{
			{Hand: -1, Rule: game.DealerDraws, Text: "the dealer stopped on 17", Cards: places(0, -1, 2)},
		}},
		{"dealer may stop when every hand busted", "TS 5D", []string{"TS 6D 8C"}, nil},
		{"a dealer never read raises nothing", "XX XX", []string{"TS 9D"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d []cards.Card
			for _, f := range strings.Fields(tt.dealer) {
				c, _ := cards.Parse(f) // XX: never read
				d = append(d, c)
			}
			r := game.Round{Dealer: game.Dealer{Cards: d}, Seats: []game.Seat{seat(t, tt.hands...)}}
			got := r.Violations(game.DefaultRules())
			if len(got) == 0 && len(tt.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Violations() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// places lists the n cards of seat s's hand h (h -1: the dealer's).
func places(s, h, n int) []game.Place {
	out := make([]game.Place, n)
	for i := range out {
		out[i] = game.Place{Seat: s, Hand: h, Card: i}
	}
	return out
}

func TestSettle(t *testing.T) {
	fb, classic := game.DefaultRules(), game.Rules{Variant: game.Classic, Decks: 6, HitSoft17: true, HoleCard: true}
	tests := []struct {
		name   string
		rules  game.Rules
		hand   string
		split  bool
		dealer string
		want   game.Result
	}{
		{"dealer 22 against a player blackjack", fb, "AS KD", false, "TS 6D 6C", game.Blackjack},
		{"dealer 22 pushes 20 in Free Bet", fb, "TS QD", false, "TS 6D 6C", game.Push},
		{"dealer 22 loses to 20 in classic", classic, "TS QD", false, "TS 6D 6C", game.Win},
		{"dealer 23 loses", fb, "TS 2D", false, "TS 6D 7C", game.Win},
		{"player bust loses to dealer 22", fb, "TS 6D 8C", false, "TS 6D 6C", game.Lose},
		{"split 21 is no blackjack", fb, "AS KD", true, "TS 9D", game.Win},
		{"both blackjack", fb, "AS KD", false, "AH QD", game.Push},
		{"dealer blackjack", fb, "TS 9D", false, "AH QD", game.Lose},
		{"tie", classic, "TS 8D", false, "9S 9C", game.Push},
		{"lower total", classic, "TS 7D", false, "9S 9C", game.Lose},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := seat(t, tt.hand).Hands[0]
			d, _ := cards.ParseList(tt.dealer)
			if got := tt.rules.Settle(h, tt.split, d); got != tt.want {
				t.Errorf("Settle(%s vs %s) = %s, want %s", tt.hand, tt.dealer, got, tt.want)
			}
		})
	}
}

func TestDealerHits(t *testing.T) {
	h17, s17 := game.Rules{HitSoft17: true}, game.Rules{}
	tests := []struct {
		cards    string
		h17, s17 bool
	}{
		{"AS 6D", true, false},
		{"TS 7D", false, false},
		{"TS 6D", true, true},
		{"AS 5D AC", true, false},
		{"AS 5D", true, true},
		{"AS 6D TC", false, false},
	}
	for _, tt := range tests {
		cs, _ := cards.ParseList(tt.cards)
		if got := h17.DealerHits(cs); got != tt.h17 {
			t.Errorf("H17 DealerHits(%s) = %v, want %v", tt.cards, got, tt.h17)
		}
		if got := s17.DealerHits(cs); got != tt.s17 {
			t.Errorf("S17 DealerHits(%s) = %v, want %v", tt.cards, got, tt.s17)
		}
	}
}
