package game

import (
	"fmt"

	"bjmonitor/cards"
)

// Variant is the blackjack game a table deals.
type Variant string

// The variants the monitor knows.
const (
	// Classic is ordinary blackjack.
	Classic Variant = "classic"
	// FreeBet is Free Bet Blackjack: free doubles on hard 9–11, free
	// splits on any pair but tens, and a dealer 22 pushes every hand
	// except a blackjack.
	FreeBet Variant = "freebet"
)

// Rules are the table rules a round is played under.
type Rules struct {
	Variant Variant
	// Decks in the shoe.
	Decks int
	// HitSoft17: the dealer hits a soft 17 (H17) rather than standing (S17).
	HitSoft17 bool
	// HoleCard: the dealer takes a second card, face down, before the
	// players act. Without it (European no-hole-card tables) the dealer's
	// second card comes after every player has finished.
	HoleCard bool
}

// DefaultRules are Free Bet Blackjack's usual rules: 6 decks, the dealer
// hits soft 17, with a hole card.
func DefaultRules() Rules {
	return Rules{Variant: FreeBet, Decks: 6, HitSoft17: true, HoleCard: true}
}

// Validate reports the first rule that makes no sense.
func (r Rules) Validate() error {
	switch r.Variant {
	case Classic, FreeBet:
	default:
		return fmt.Errorf("variant %q: want %q or %q", r.Variant, Classic, FreeBet)
	}
	if r.Decks < 1 || r.Decks > 8 {
		return fmt.Errorf("decks %d: want 1 to 8", r.Decks)
	}
	return nil
}

// DealerHits reports whether a dealer holding cs must draw another card.
func (r Rules) DealerHits(cs []cards.Card) bool {
	s := cards.Score(cs)
	return s.Total < 17 || (s.Total == 17 && s.Soft && r.HitSoft17)
}

// FreeDouble reports whether doubling a hand that holds exactly cs is free
// in Free Bet Blackjack: a hard 9, 10 or 11 on two cards.
func FreeDouble(cs []cards.Card) bool {
	if len(cs) != 2 {
		return false
	}
	s := cards.Score(cs)
	return !s.Soft && s.Total >= 9 && s.Total <= 11
}

// FreeSplit reports whether splitting cs is free in Free Bet Blackjack:
// any pair of the same rank except ten-value cards.
func FreeSplit(cs []cards.Card) bool {
	return len(cs) == 2 && cs[0].Rank == cs[1].Rank && !cs[0].Rank.IsTenValue()
}

// String describes the rules briefly, as "6 decks, H17, hole card".
func (r Rules) String() string {
	s := fmt.Sprintf("%d decks, S17", r.Decks)
	if r.HitSoft17 {
		s = fmt.Sprintf("%d decks, H17", r.Decks)
	}
	if r.HoleCard {
		return s + ", hole card"
	}
	return s + ", no hole card"
}
