// Package game describes one round of blackjack as the monitor rebuilds it
// from the video, and the table rules it was played under.
//
// A Round is what the tracker produces and what the evaluator judges: the
// dealer's cards with the up card first, and for each seat the hands in the
// order they came into being. A seat starts with one hand; each split takes
// the hand's second card away into a new hand, appended to the seat's list,
// whose SplitFrom names the hand it came from. Every hand's cards are in
// the order they were dealt to it. With that, the seat's cards can be put
// back into the order the player received them (see Seat.Received), which
// the Blazing 7's third-card rule needs.
//
// The rules of the game are checked in one place, Round.Violations: the
// tracker flags what it returns as doubts on the round it rebuilt, and
// lowers the confidence of the cards each rests on.
//
//	for _, v := range r.Violations(rules) {
//		log.Print(v) // "seat 3 hand 1: a card came after the hand busted"
//	}
//	for _, s := range r.Seats {
//		first, second := s.FirstTwo()
//		...
//	}
//
// Free Bet Blackjack terms used here: a lammer is the plastic button the
// dealer puts down in place of the player's money for a free double (on a
// hard 9, 10 or 11) or a free split (any pair but ten-value cards).
package game
