package par

import (
	"bjmonitor/evaluator"
)

// valueShoe counts cards by blackjack value: index 1 is the ace, 10 every
// ten-value card.
type valueShoe struct {
	n     [11]float64
	total float64
}

func newValueShoe(decks int) *valueShoe {
	s := &valueShoe{}
	for v := 1; v <= 9; v++ {
		s.n[v] = float64(4 * decks)
	}
	s.n[10] = float64(16 * decks)
	s.total = float64(52 * decks)
	return s
}

// dealerFinal is the distribution of the dealer's final hand.
type dealerFinal struct {
	total     [23]float64 // total[17..22]; 22 is the Push 22 total
	over22    float64
	blackjack float64
}

// dealerOutcomes walks every sequence of cards the dealer can draw from s,
// from the first card, under the table's soft-17 rule.
func dealerOutcomes(s *valueShoe, hitSoft17 bool) dealerFinal {
	var d dealerFinal
	var walk func(hard, n int, ace bool, p float64)
	walk = func(hard, n int, ace bool, p float64) {
		total, soft := hard, false
		if ace && hard+10 <= 21 {
			total, soft = hard+10, true
		}
		if n == 2 && total == 21 {
			d.blackjack += p
			return
		}
		if n >= 2 && (total > 17 || (total == 17 && !(soft && hitSoft17))) {
			switch {
			case total > 22:
				d.over22 += p
			default:
				d.total[total] += p
			}
			return
		}
		for v := 1; v <= 10; v++ {
			if s.n[v] <= 0 {
				continue
			}
			pv := s.n[v] / s.total
			s.n[v]--
			s.total--
			walk(hard+v, n+1, ace || v == 1, p*pv)
			s.n[v]++
			s.total++
		}
	}
	walk(0, 0, false, 1)
	return d
}

// Push22 computes the chance that the dealer ends on exactly 22, by
// recursion over the dealer's draws from a full shoe. The dealer is taken
// to play the hand out; the rare round where every player busts or has a
// blackjack, and the dealer draws nothing, is not modelled.
func Push22(decks int, t evaluator.Push22Table, hitSoft17 bool) Bet {
	d := dealerOutcomes(newValueShoe(decks), hitSoft17)
	b := Bet{Bet: string(evaluator.Push22), Paytable: t.Name, Method: "recursion", Rule: "S17"}
	if hitSoft17 {
		b.Rule = "H17"
	}
	p22 := d.total[22]
	b.Outcomes = []Outcome{
		{Name: "22", Probability: p22, Pays: t.Dealer22},
		{Name: evaluator.Lose, Probability: 1 - p22, Pays: -1},
	}
	b.finish()
	return b
}
