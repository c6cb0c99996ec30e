package game

import (
	"fmt"
	"slices"

	"bjmonitor/cards"
)

// Place names one card of a round: Card is its index in the dealer's row
// (Seat 0, Hand -1) or in hand Hand of seat Seat.
type Place struct{ Seat, Hand, Card int }

// Rule names a rule of the game that a round can break.
type Rule string

// The rules Violations checks.
const (
	TwoCards        Rule = "two_cards"        // every hand takes two cards
	DoubleTakesOne  Rule = "double_takes_one" // a doubled hand holds exactly three
	NoCardAfterBust Rule = "no_card_after_bust"
	SplitNeedsPair  Rule = "split_needs_pair"
	DealerStands    Rule = "dealer_stands" // the dealer drew where the rules say stand
	DealerDraws     Rule = "dealer_hits"   // the dealer stopped where the rules say hit
)

// Violation is something a round shows that the game's rules say cannot
// have happened: a misread or missed card, or a dealer's mistake.
type Violation struct {
	// Seat and Hand are the hand it concerns: Seat 0 and Hand -1 for the
	// dealer's.
	Seat, Hand int
	Rule       Rule
	// Text says what, as "seat 3 hand 1: a card came after the hand
	// busted".
	Text string
	// Cards are the cards it rests on, any of which may be misread.
	Cards []Place
}

func (v Violation) String() string { return v.Text }

// Violations checks the round against the rules of the game, hand by hand
// and then the dealer's: every hand takes two cards, a doubled hand exactly
// three, a busted hand no more, a split needs a pair, and the dealer draws
// to 17 and no further. Cards never read (the zero Card) count for nothing
// in a total, and a card known by its rank alone counts its rank; a
// dealer's row of unread cards alone raises nothing.
func (r Round) Violations(rules Rules) []Violation {
	var out []Violation
	for _, s := range r.Seats {
		for hi := range s.Hands {
			out = append(out, s.handViolations(hi)...)
		}
	}
	return append(out, r.dealerViolations(rules)...)
}

// handViolations checks hand hi of the seat.
func (s Seat) handViolations(hi int) []Violation {
	h := s.Hands[hi]
	all := s.places(hi)
	var out []Violation
	add := func(rule Rule, on []Place, format string, a ...any) {
		prefix := fmt.Sprintf("seat %d hand %d: ", s.Seat, hi)
		out = append(out, Violation{Seat: s.Seat, Hand: hi, Rule: rule, Text: prefix + fmt.Sprintf(format, a...), Cards: on})
	}
	n := len(h.Cards)
	if n < 2 {
		add(TwoCards, all, "%d card(s), but every hand takes two", n)
	}
	if h.Doubled && n != 3 {
		add(DoubleTakesOne, all, "doubled with %d cards", n)
	}
	if n > 1 && cards.Score(h.Cards[:n-1]).Bust() {
		add(NoCardAfterBust, all, "a card came after the hand busted")
	}
	if from := h.SplitFrom; from >= 0 && from < hi && n > 0 && len(s.Hands[from].Cards) > 0 {
		a, b := s.Hands[from].Cards[0], h.Cards[0]
		if !cards.IsPair([]cards.Card{a, b}) {
			add(SplitNeedsPair, []Place{{s.Seat, from, 0}, {s.Seat, hi, 0}}, "split from %s and %s, which are no pair", a, b)
		}
	}
	return out
}

// dealerViolations checks that the dealer drew while the rules say hit and
// stopped where they say stand. A dealer may stop early only when no
// player hand is left standing: every hand busted, or a lone blackjack.
func (r Round) dealerViolations(rules Rules) []Violation {
	d := r.Dealer.Cards
	all := make([]Place, len(d))
	for i := range d {
		all[i] = Place{Seat: 0, Hand: -1, Card: i}
	}
	var out []Violation
	for i := 2; i < len(d); i++ {
		if !rules.DealerHits(d[:i]) {
			out = append(out, Violation{Hand: -1, Rule: DealerStands, Text: fmt.Sprintf("the dealer drew on %d", cards.Score(d[:i]).Total), Cards: all})
			break
		}
	}
	standing := false
	for _, s := range r.Seats {
		for _, h := range s.Hands {
			if !h.Busted() && !(len(s.Hands) == 1 && cards.IsBlackjack(h.Cards)) {
				standing = true
			}
		}
	}
	read := slices.ContainsFunc(d, cards.Card.Valid)
	if standing && len(d) >= 2 && !cards.IsBlackjack(d) && rules.DealerHits(d) && read {
		out = append(out, Violation{Hand: -1, Rule: DealerDraws, Text: fmt.Sprintf("the dealer stopped on %d", cards.Score(d).Total), Cards: all})
	}
	return out
}

// places lists the places of hand hi's cards.
func (s Seat) places(hi int) []Place {
	out := make([]Place, len(s.Hands[hi].Cards))
	for i := range out {
		out[i] = Place{Seat: s.Seat, Hand: hi, Card: i}
	}
	return out
}
