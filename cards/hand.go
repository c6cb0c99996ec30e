package cards

// HandScore is the blackjack total of some cards.
type HandScore struct {
	// Total is the best total: an ace counts 11 when that does not bust.
	Total int
	// Soft reports whether an ace is counted as 11 in Total.
	Soft bool
}

// Hard is the total with every ace counted as 1.
func (s HandScore) Hard() int {
	if s.Soft {
		return s.Total - 10
	}
	return s.Total
}

// Bust reports whether the total is over 21.
func (s HandScore) Bust() bool { return s.Total > 21 }

// Score returns the blackjack total of cs.
func Score(cs []Card) HandScore {
	hard, aces := 0, 0
	for _, c := range cs {
		hard += c.Rank.Value()
		if c.Rank == Ace {
			aces++
		}
	}
	if aces > 0 && hard+10 <= 21 {
		return HandScore{Total: hard + 10, Soft: true}
	}
	return HandScore{Total: hard}
}

// IsBlackjack reports whether cs is a two-card 21: an ace and a ten-value
// card. Whether a split hand's 21 counts as blackjack is a table rule, so
// callers decide that; this reports only the cards.
func IsBlackjack(cs []Card) bool {
	if len(cs) != 2 {
		return false
	}
	a, b := cs[0].Rank, cs[1].Rank
	return (a == Ace && b.IsTenValue()) || (b == Ace && a.IsTenValue())
}

// IsPair reports whether cs are two cards a player may split: the same
// rank, or two ten-value cards (a king and a queen split like a pair).
func IsPair(cs []Card) bool {
	if len(cs) != 2 {
		return false
	}
	a, b := cs[0].Rank, cs[1].Rank
	return a == b || (a.IsTenValue() && b.IsTenValue())
}
