package game

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"bjmonitor/cards"
)

// Round is one game at the table, from the first card dealt to the table
// being cleared.
type Round struct {
	// ID is the controller's round number, or one the tracker made up
	// when there is no controller log.
	ID     string `json:"round"`
	Dealer Dealer `json:"dealer"`
	Seats  []Seat `json:"seats"`
}

// Dealer is the dealer's hand.
type Dealer struct {
	// Cards in dealing order: the up card first, then the hole card (or,
	// at a no-hole-card table, the second card), then each draw.
	Cards []cards.Card `json:"cards"`
}

// UpCard returns the dealer's first card, if dealt.
func (d Dealer) UpCard() (cards.Card, bool) {
	if len(d.Cards) == 0 {
		return cards.Card{}, false
	}
	return d.Cards[0], true
}

// Seat is one player's position and the hands played there.
type Seat struct {
	// Seat is the seat number as the table controller numbers it.
	Seat int `json:"seat"`
	// Hands in the order they came into being: the first hand, then each
	// split hand as it was split off.
	Hands []Hand `json:"hands"`
}

// Hand is one player hand. A split makes two.
type Hand struct {
	// Cards in the order they were dealt to this hand. After a split the
	// hand's first card is the one it kept from the pair.
	Cards []cards.Card `json:"cards"`
	// SplitFrom is the index in Seat.Hands of the hand this one was split
	// from, or -1 for the seat's first hand.
	SplitFrom int `json:"split_from"`
	// Doubled: the hand was doubled down, so its last card (the third)
	// lay sideways and no other card followed.
	Doubled bool `json:"doubled,omitempty"`
}

// UnmarshalJSON decodes a hand, taking a missing split_from to mean the
// seat's first hand (-1) rather than a split from hand 0.
func (h *Hand) UnmarshalJSON(b []byte) error {
	type plain Hand // no methods, so no recursion
	p := plain{SplitFrom: -1}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*h = Hand(p)
	return nil
}

// Score is the hand's blackjack total.
func (h Hand) Score() cards.HandScore { return cards.Score(h.Cards) }

// Busted reports whether the hand went over 21.
func (h Hand) Busted() bool { return h.Score().Bust() }

// BustCard returns the card that took the hand over 21: the last one, since
// a busted hand takes no more cards.
func (h Hand) BustCard() (cards.Card, bool) {
	if !h.Busted() {
		return cards.Card{}, false
	}
	return h.Cards[len(h.Cards)-1], true
}

// Received returns the cards of the seat's first hand and the hands split
// from it, put back in the order the player received them: the first card,
// then the card each split took away (these were, in turn, the card dealt
// to the first hand before it was split again), then the first hand's
// later cards. Its first two entries are the player's first two cards; its
// third is the next card the player was dealt.
func (s Seat) Received() []cards.Card {
	at := s.ReceivedAt()
	if len(at) == 0 {
		return nil
	}
	out := make([]cards.Card, len(at))
	for i, p := range at {
		out[i] = s.Hands[p.Hand].Cards[p.Card]
	}
	return out
}

// ReceivedAt returns where each card of Received lies, in the same order:
// its hand and its place in the hand, at the seat's number.
func (s Seat) ReceivedAt() []Place {
	if len(s.Hands) == 0 || len(s.Hands[0].Cards) == 0 {
		return nil
	}
	out := []Place{{Seat: s.Seat, Hand: 0, Card: 0}}
	for hi, h := range s.Hands {
		if hi > 0 && h.SplitFrom == 0 && len(h.Cards) > 0 {
			out = append(out, Place{Seat: s.Seat, Hand: hi, Card: 0})
		}
	}
	for i := 1; i < len(s.Hands[0].Cards); i++ {
		out = append(out, Place{Seat: s.Seat, Hand: 0, Card: i})
	}
	return out
}

// FirstTwo returns the player's first two cards, the ones 21+3 and Blazing
// 7's are judged on, and whether both were dealt.
func (s Seat) FirstTwo() ([2]cards.Card, bool) {
	r := s.Received()
	if len(r) < 2 {
		return [2]cards.Card{}, false
	}
	return [2]cards.Card{r[0], r[1]}, true
}

// Split reports whether the seat's first hand was split.
func (s Seat) Split() bool { return len(s.Hands) > 1 }

// Lammers counts the Free Bet buttons the seat received: one for each free
// split (a pair other than ten-value cards) and one for each free double (a
// hard 9, 10 or 11 on two cards). Re-splits and doubles after splits count.
func (s Seat) Lammers() int {
	n := 0
	for i, h := range s.Hands {
		if i > 0 && len(h.Cards) > 0 && !h.Cards[0].Rank.IsTenValue() {
			n++ // the split that made this hand was of a non-ten pair
		}
		if h.Doubled && len(h.Cards) >= 2 && FreeDouble(h.Cards[:2]) {
			n++
		}
	}
	return n
}

// WithCard returns a copy of r with c at place p (the dealer's row is
// hand -1), sharing nothing that the copy changes with r. A place r does
// not have changes nothing.
func (r Round) WithCard(p Place, c cards.Card) Round {
	if p.Hand < 0 {
		if p.Card >= 0 && p.Card < len(r.Dealer.Cards) {
			r.Dealer.Cards = slices.Clone(r.Dealer.Cards)
			r.Dealer.Cards[p.Card] = c
		}
		return r
	}
	r.Seats = slices.Clone(r.Seats)
	for i, s := range r.Seats {
		if s.Seat != p.Seat || p.Hand >= len(s.Hands) || p.Card < 0 || p.Card >= len(s.Hands[p.Hand].Cards) {
			continue
		}
		s.Hands = slices.Clone(s.Hands)
		s.Hands[p.Hand].Cards = slices.Clone(s.Hands[p.Hand].Cards)
		s.Hands[p.Hand].Cards[p.Card] = c
		r.Seats[i] = s
	}
	return r
}

// ForAll reports whether holds is true of r with every choice of cards
// at the places at: each place takes each card choices gives for it, in
// every combination (n places of k cards make k^n rounds). It stops at
// the first round holds is false of.
func (r Round) ForAll(at []Place, choices func(Place) []cards.Card, holds func(Round) bool) bool {
	if len(at) == 0 {
		return holds(r)
	}
	for _, c := range choices(at[0]) {
		if !r.WithCard(at[0], c).ForAll(at[1:], choices, holds) {
			return false
		}
	}
	return true
}

// ErrRound is wrapped by every error that Validate returns for a round
// that cannot be laid out on a table.
var ErrRound = errors.New("invalid round")

// Validate checks that the round is one a table can hold: every card a
// card (or the zero Card, a card never read, or a card known by its rank
// alone), each split hand naming an
// earlier hand, and no seat listed twice. Whether the cards could have
// been dealt that way is for Violations to say.
func (r Round) Validate() error {
	for i, c := range r.Dealer.Cards {
		if !readOrUnread(c) {
			return fmt.Errorf("%w: dealer card %d is not a card", ErrRound, i)
		}
	}
	seen := make(map[int]bool, len(r.Seats))
	for _, s := range r.Seats {
		if seen[s.Seat] {
			return fmt.Errorf("%w: seat %d listed twice", ErrRound, s.Seat)
		}
		seen[s.Seat] = true
		if err := s.validate(); err != nil {
			return fmt.Errorf("%w: seat %d: %v", ErrRound, s.Seat, err)
		}
	}
	return nil
}

func readOrUnread(c cards.Card) bool { return c.Valid() || c.RankOnly() || c == cards.Card{} }

func (s Seat) validate() error {
	for i, h := range s.Hands {
		for j, c := range h.Cards {
			if !readOrUnread(c) {
				return fmt.Errorf("hand %d card %d is not a card", i, j)
			}
		}
		if i == 0 && h.SplitFrom != -1 {
			return fmt.Errorf("hand 0 has split_from %d, want -1", h.SplitFrom)
		}
		if i > 0 && (h.SplitFrom < 0 || h.SplitFrom >= i) {
			return fmt.Errorf("hand %d has split_from %d, want an earlier hand", i, h.SplitFrom)
		}
	}
	return nil
}
