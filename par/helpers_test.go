package par

import (
	"math/rand/v2"

	"bjmonitor/cards"
	"bjmonitor/deal"
	"bjmonitor/game"
)

// simulateDealer22 deals n dealer hands, each from a freshly shuffled shoe
// as the recursion assumes, and returns the share that end on 22.
func simulateDealer22(rules game.Rules, n int, seed uint64) (float64, int) {
	shoe := deal.NewShoe(rules.Decks, rand.New(rand.NewPCG(seed, 1)))
	hits := 0
	for range n {
		shoe.Shuffle()
		d := []cards.Card{shoe.Next(), shoe.Next()}
		if !cards.IsBlackjack(d) {
			for rules.DealerHits(d) {
				d = append(d, shoe.Next())
			}
		}
		if cards.Score(d).Total == 22 {
			hits++
		}
	}
	return float64(hits) / float64(n), n
}

// freeBetPossible is the chance that two cards from the shoe are a pair
// other than tens, or a hard 9, 10 or 11.
func freeBetPossible(decks int) float64 {
	deck := cards.Shoe(decks)
	yes, all := 0, 0
	for i := range deck {
		for j := range deck {
			if i == j {
				continue
			}
			two := []cards.Card{deck[i], deck[j]}
			all++
			if game.FreeSplit(two) || game.FreeDouble(two) {
				yes++
			}
		}
	}
	return float64(yes) / float64(all)
}
