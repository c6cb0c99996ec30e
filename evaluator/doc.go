// Package evaluator decides every side bet of a blackjack round: what each
// wager should have won, given the cards as the tracker rebuilt them, the
// table's pay tables and the progressive meter.
//
// It is pure: Evaluate reads a round and returns outcomes, and the only
// state in the package is the Meter, which the caller owns and advances.
//
//	o, err := evaluator.Evaluate(round, rules, evaluator.Wager{Seat: 3, Bet: evaluator.TwentyOnePlusThree, Amount: 5}, tables, meter.Value())
//	// o.Result == "flush", o.Pays == 9, o.Win == 45
//
// The bets (see ../shared/rules for the regulator's text):
//   - 21+3: the player's first two cards and the dealer's up card as a
//     three-card poker hand.
//   - Blazing 7's: a $1 progressive judged on the player's 7s; three 7s of
//     one colour win 10% of the meter, of one suit 100%.
//   - Push 22 (Free Bet Blackjack): wins when the dealer ends on 22.
//   - Pot of Gold (Free Bet Blackjack): pays by the number of lammers, the
//     buttons that stand for free doubles and free splits.
package evaluator
