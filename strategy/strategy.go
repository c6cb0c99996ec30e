// Package strategy says what a player following basic strategy does with a
// hand: hit, stand, double or split. The test-footage generator deals its
// players' hands with it, and the PAR sheet simulates Pot of Gold with it.
//
//	a := strategy.For(rules).Decide(strategy.Situation{Cards: hand, Up: up, CanSplit: true, CanDouble: true})
//
// The classic chart is the standard multi-deck chart for a dealer who hits
// soft 17 with doubling after splits. The Free Bet chart follows the one
// published for Free Bet Blackjack (6 decks, H17): take the free doubles on
// hard 9, 10 and 11 and split pairs freely, and otherwise play as in
// classic blackjack. It is a basic strategy, not a composition-dependent
// optimum.
package strategy

import (
	"bjmonitor/cards"
	"bjmonitor/game"
)

// Action is a player's decision.
type Action int

// The decisions.
const (
	Stand Action = iota
	Hit
	Double
	Split
)

func (a Action) String() string {
	return [...]string{"stand", "hit", "double", "split"}[a]
}

// Situation is what the player sees when deciding.
type Situation struct {
	// Cards of the hand being played.
	Cards []cards.Card
	// Up is the dealer's up card.
	Up cards.Card
	// CanSplit: the hand is a pair and the table allows another split.
	CanSplit bool
	// CanDouble: the hand has two cards and may be doubled.
	CanDouble bool
}

// Chart decides hands.
type Chart struct {
	freeBet bool
}

// For returns the basic-strategy chart for the table's game.
func For(r game.Rules) Chart { return Chart{freeBet: r.Variant == game.FreeBet} }

// Decide returns the basic-strategy action.
func (c Chart) Decide(s Situation) Action {
	up := s.Up.Rank.Value() // 1 for an ace
	if up == 1 {
		up = 11
	}
	if s.CanSplit && cards.IsPair(s.Cards) && c.split(s.Cards[0].Rank, up) {
		return Split
	}
	sc := cards.Score(s.Cards)
	var a Action
	if sc.Soft {
		a = soft(sc.Total, up)
	} else {
		a = c.hard(sc.Total, up)
	}
	if a == Double && !s.CanDouble {
		// "Ds": double if allowed, otherwise stand (soft 18 and 19).
		if sc.Soft && sc.Total >= 18 {
			return Stand
		}
		return Hit
	}
	return a
}

func between(up, lo, hi int) bool { return up >= lo && up <= hi }

func (c Chart) hard(total, up int) Action {
	switch {
	case total <= 8:
		return Hit
	case total == 9:
		if c.freeBet && between(up, 2, 9) || between(up, 3, 6) {
			return Double
		}
		return Hit
	case total == 10:
		if between(up, 2, 9) || c.freeBet {
			return Double
		}
		return Hit
	case total == 11:
		return Double
	case total == 12:
		if between(up, 4, 6) {
			return Stand
		}
		return Hit
	case total <= 16:
		if between(up, 2, 6) {
			return Stand
		}
		return Hit
	}
	return Stand
}

func soft(total, up int) Action {
	switch total {
	case 13, 14:
		if between(up, 5, 6) {
			return Double
		}
		return Hit
	case 15, 16:
		if between(up, 4, 6) {
			return Double
		}
		return Hit
	case 17:
		if between(up, 3, 6) {
			return Double
		}
		return Hit
	case 18:
		switch {
		case between(up, 2, 6):
			return Double
		case between(up, 7, 8):
			return Stand
		}
		return Hit
	case 19:
		if up == 6 {
			return Double
		}
		return Stand
	case 12: // two aces that may not be split again
		return Hit
	}
	return Stand
}

func (c Chart) split(r cards.Rank, up int) bool {
	switch {
	case r == cards.Ace || r == cards.Eight:
		return true
	case r.IsTenValue():
		return false
	case r == cards.Five:
		return false // played as a hard 10
	case r == cards.Nine:
		return between(up, 2, 9) && up != 7
	}
	if c.freeBet {
		return between(up, 2, 8) // free splits of 2s, 3s, 4s, 6s and 7s
	}
	switch r {
	case cards.Two, cards.Three, cards.Seven:
		return between(up, 2, 7)
	case cards.Four:
		return between(up, 5, 6)
	case cards.Six:
		return between(up, 2, 6)
	}
	return false
}
