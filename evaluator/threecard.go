package evaluator

import (
	"slices"

	"bjmonitor/cards"
)

// ThreeCardHand is a 21+3 poker hand, in poker order: a higher value beats
// a lower one.
type ThreeCardHand int

// The 21+3 hands.
const (
	NoHand ThreeCardHand = iota
	Flush
	Straight
	ThreeOfAKind
	StraightFlush
	// SuitedThreeOfAKind is three cards of one rank and one suit, possible
	// with more than one deck. Tables without a line for it pay it as
	// three of a kind.
	SuitedThreeOfAKind
)

var threeCardNames = [...]string{"nothing", "flush", "straight", "three_of_a_kind", "straight_flush", "suited_three_of_a_kind"}

func (h ThreeCardHand) String() string { return threeCardNames[h] }

// ClassifyThreeCard returns the best poker hand the three cards make. Aces
// are high or low (A-2-3 and Q-K-A are straights); K-A-2 is not.
func ClassifyThreeCard(c [3]cards.Card) ThreeCardHand {
	flush := c[0].Suit == c[1].Suit && c[1].Suit == c[2].Suit
	r := []int{int(c[0].Rank), int(c[1].Rank), int(c[2].Rank)}
	slices.Sort(r)
	trips := r[0] == r[2]
	straight := (r[1] == r[0]+1 && r[2] == r[1]+1) ||
		(r[0] == int(cards.Ace) && r[1] == int(cards.Queen) && r[2] == int(cards.King))
	switch {
	case trips && flush:
		return SuitedThreeOfAKind
	case straight && flush:
		return StraightFlush
	case trips:
		return ThreeOfAKind
	case straight:
		return Straight
	case flush:
		return Flush
	}
	return NoHand
}
