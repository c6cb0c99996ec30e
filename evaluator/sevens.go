package evaluator

import "bjmonitor/cards"

// sevens is a Blazing 7's result.
type sevens int

const (
	sevenNone sevens = iota
	sevenOne
	sevenTwo
	sevenThree
	sevenSameColour
	sevenSameSuit
)

var sevenNames = [...]string{Lose, "one_seven", "two_sevens", "three_sevens", "three_sevens_same_colour", "three_sevens_same_suit"}

func (s sevens) String() string { return sevenNames[s] }

func sevenClass(a, b, c cards.Card) sevens {
	switch {
	case a.Suit == b.Suit && b.Suit == c.Suit:
		return sevenSameSuit
	case a.Suit.Red() == b.Suit.Red() && b.Suit.Red() == c.Suit.Red():
		return sevenSameColour
	}
	return sevenThree
}
