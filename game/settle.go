package game

import "bjmonitor/cards"

// Result is how a player's main bet on one hand ends.
type Result string

// The results of a main bet.
const (
	Win       Result = "win"
	Lose      Result = "lose"
	Push      Result = "push"
	Blackjack Result = "blackjack" // a natural, paid 3 to 2
)

// Settle decides hand h against the dealer's final cards. A split hand's
// two-card 21 is not a blackjack. In Free Bet Blackjack a dealer 22 pushes
// every hand still standing except a blackjack, which still wins.
func (r Rules) Settle(h Hand, split bool, dealer []cards.Card) Result {
	natural := !split && cards.IsBlackjack(h.Cards)
	dealerNatural := cards.IsBlackjack(dealer)
	p, d := h.Score(), cards.Score(dealer)
	switch {
	case natural && dealerNatural:
		return Push
	case natural:
		return Blackjack
	case dealerNatural:
		return Lose
	case p.Bust():
		return Lose // the player's bust loses even if the dealer busts later
	case r.Variant == FreeBet && d.Total == 22:
		return Push
	case d.Bust() || p.Total > d.Total:
		return Win
	case p.Total == d.Total:
		return Push
	}
	return Lose
}
