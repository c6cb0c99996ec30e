package par

import (
	"bjmonitor/cards"
	"bjmonitor/evaluator"
)

// shoe counts the cards of each of the 52 kinds.
type shoe struct {
	kinds []cards.Card
	n     []float64
	total float64
}

func newShoe(decks int) *shoe {
	s := &shoe{kinds: cards.Deck()}
	s.n = make([]float64, len(s.kinds))
	for i := range s.n {
		s.n[i] = float64(decks)
	}
	s.total = float64(52 * decks)
	return s
}

// draw removes one card of kind i and returns the chance it was drawn.
func (s *shoe) draw(i int) float64 {
	p := s.n[i] / s.total
	s.n[i]--
	s.total--
	return p
}

func (s *shoe) undo(i int) {
	s.n[i]++
	s.total++
}

// TwentyOnePlusThree enumerates every three-card hand of the player's first
// two cards and the dealer's up card.
func TwentyOnePlusThree(decks int, t evaluator.ThreeCardTable) Bet {
	s := newShoe(decks)
	var p [evaluator.SuitedThreeOfAKind + 1]float64
	for i := range s.kinds {
		pi := s.draw(i)
		for j := range s.kinds {
			pj := s.draw(j)
			for k := range s.kinds {
				if s.n[k] <= 0 {
					continue
				}
				h := evaluator.ClassifyThreeCard([3]cards.Card{s.kinds[i], s.kinds[j], s.kinds[k]})
				p[h] += pi * pj * s.n[k] / s.total
			}
			s.undo(j)
		}
		s.undo(i)
	}
	if t.SuitedThreeOfAKind == 0 { // the table pays suited trips as trips
		p[evaluator.ThreeOfAKind] += p[evaluator.SuitedThreeOfAKind]
		p[evaluator.SuitedThreeOfAKind] = 0
	}
	b := Bet{Bet: string(evaluator.TwentyOnePlusThree), Paytable: t.Name, Method: "enumeration"}
	for h := evaluator.SuitedThreeOfAKind; h > evaluator.NoHand; h-- {
		if h == evaluator.SuitedThreeOfAKind && t.SuitedThreeOfAKind == 0 {
			continue
		}
		b.Outcomes = append(b.Outcomes, Outcome{Name: h.String(), Probability: p[h], Pays: t.Pays(h)})
	}
	b.Outcomes = append(b.Outcomes, Outcome{Name: evaluator.Lose, Probability: p[evaluator.NoHand], Pays: -1})
	b.finish()
	return b
}

// Blazing7s enumerates the player's first two cards and, after two 7s,
// the next card the player receives. It assumes a player always takes that
// card after 7-7 (basic strategy hits or splits a hard 14, never stands),
// except when the dealer turns up a blackjack at a hole-card table, which
// ends the round first. Percentage awards are priced at the given meter for
// a $1 wager.
func Blazing7s(decks int, t evaluator.Blazing7sTable, holeCard bool, meter float64) Bet {
	s := newShoe(decks)
	var none, one, two, three, colour, suit float64
	sevens := []int{}
	for i, c := range s.kinds {
		if c.Rank == cards.Seven {
			sevens = append(sevens, i)
		}
	}
	isSeven := func(i int) bool { return s.kinds[i].Rank == cards.Seven }
	for i := range s.kinds {
		pi := s.draw(i)
		for j := range s.kinds {
			if s.n[j] <= 0 {
				continue
			}
			pij := pi * s.n[j] / s.total
			switch {
			case !isSeven(i) && !isSeven(j):
				none += pij
				continue
			case !isSeven(i) || !isSeven(j):
				one += pij
				continue
			}
			s.draw(j)
			// Chance the player gets a third card: no dealer blackjack
			// found by the peek.
			noBJ := 1.0
			if holeCard {
				noBJ -= dealerBlackjack(s)
			}
			got := 0.0 // chance of a third 7, by kind
			for _, k := range sevens {
				if s.n[k] <= 0 {
					continue
				}
				pk := s.n[k] / s.total * noBJ
				got += pk
				a, b, c := s.kinds[i], s.kinds[j], s.kinds[k]
				switch {
				case a.Suit == b.Suit && b.Suit == c.Suit:
					suit += pij * pk
				case a.Suit.Red() == b.Suit.Red() && b.Suit.Red() == c.Suit.Red():
					colour += pij * pk
				default:
					three += pij * pk
				}
			}
			two += pij * (1 - got)
			s.undo(j)
		}
		s.undo(i)
	}
	win := func(pays float64) float64 {
		if t.ForOne && pays > 0 {
			return pays - 1
		}
		return pays
	}
	b := Bet{Bet: string(evaluator.Blazing7s), Paytable: t.Name, Method: "enumeration", Meter: meter}
	b.Outcomes = []Outcome{
		{Name: "three_sevens_same_suit", Probability: suit, Pays: t.SameSuit * meter},
		{Name: "three_sevens_same_colour", Probability: colour, Pays: t.SameColour * meter},
		{Name: "three_sevens", Probability: three, Pays: win(t.Three)},
		{Name: "two_sevens", Probability: two, Pays: win(t.Two)},
		{Name: "one_seven", Probability: one, Pays: win(t.One)},
		{Name: evaluator.Lose, Probability: none, Pays: -1},
	}
	if holeCard {
		b.Rule = "hole card"
	} else {
		b.Rule = "no hole card"
	}
	b.finish()
	return b
}

// dealerBlackjack is the chance that the dealer's two cards, drawn from s,
// make a blackjack.
func dealerBlackjack(s *shoe) float64 {
	aces, tens := 0.0, 0.0
	for i, c := range s.kinds {
		switch {
		case c.Rank == cards.Ace:
			aces += s.n[i]
		case c.Rank.IsTenValue():
			tens += s.n[i]
		}
	}
	return 2 * aces / s.total * tens / (s.total - 1)
}
