package evaluator_test

import (
	"errors"
	"slices"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/evaluator"
	"bjmonitor/game"
	"bjmonitor/testvideos/script"
)

// TestPlaces checks Places against Evaluate over the rounds of a scripted
// shoe (every seat played, splits, doubles and busts among them): at
// every seat, for every bet, each card of the deck put in turn at each
// place of the round that Places leaves out changes neither the outcome
// nor whether the wager can be judged. The places it names do change
// the outcome of every bet somewhere (the test would pass on every place
// named otherwise). TurnsOnDealer says of each bet what Places says on
// every round, and of a bet the package does not know, yes.
func TestPlaces(t *testing.T) {
	cfg := script.DefaultConfig()
	cfg.Rounds, cfg.Seed, cfg.Players = 60, 5, []int{1, 2, 3, 4, 5, 6, 7}
	s, err := script.Write(cfg)
	if err != nil {
		t.Fatal(err)
	}
	deck := cards.Deck()
	const meter = 1000
	same := func(a evaluator.Outcome, aerr error, b evaluator.Outcome, berr error) bool {
		if aerr != nil || berr != nil {
			return errors.Is(aerr, evaluator.ErrIncomplete) == errors.Is(berr, evaluator.ErrIncomplete) && (aerr == nil) == (berr == nil)
		}
		return a.Result == b.Result && a.Win == b.Win && a.Award == b.Award && a.MeterShare == b.MeterShare
	}
	// changes reports whether some card of the deck put at p changes the
	// judgement of w on r.
	changes := func(r game.Round, w evaluator.Wager, p game.Place) bool {
		o, oerr := evaluator.Evaluate(r, cfg.Rules, w, cfg.Tables, meter)
		for _, c := range deck {
			x, xerr := evaluator.Evaluate(r.WithCard(p, c), cfg.Rules, w, cfg.Tables, meter)
			if !same(o, oerr, x, xerr) {
				return true
			}
		}
		return false
	}
	mattered := map[evaluator.Bet]int{} // places of Places that some card changes
	for _, sr := range s.Rounds {
		r := sr.Round
		var all []game.Place
		for i := range r.Dealer.Cards {
			all = append(all, game.Place{Hand: -1, Card: i})
		}
		for _, st := range r.Seats {
			for hi, h := range st.Hands {
				for i := range h.Cards {
					all = append(all, game.Place{Seat: st.Seat, Hand: hi, Card: i})
				}
			}
		}
		for _, st := range r.Seats {
			for _, bet := range evaluator.Bets {
				w := evaluator.Wager{Seat: st.Seat, Bet: bet, Amount: 5}
				turns := evaluator.Places(r, w)
				dealer := slices.ContainsFunc(turns, func(p game.Place) bool { return p.Hand < 0 })
				if dealer != evaluator.TurnsOnDealer(bet) {
					t.Errorf("round %s seat %d %s: Places %v, but TurnsOnDealer says %v", r.ID, st.Seat, bet, turns, evaluator.TurnsOnDealer(bet))
				}
				for _, p := range all {
					if slices.Contains(turns, p) {
						if changes(r, w, p) {
							mattered[bet]++
						}
						continue
					}
					if changes(r, w, p) {
						t.Errorf("round %s seat %d %s: a card at %+v changes the outcome, but Places %v leaves it out", r.ID, st.Seat, bet, p, turns)
					}
				}
			}
		}
	}
	for _, bet := range evaluator.Bets {
		if mattered[bet] == 0 {
			t.Errorf("%s: no place Places names ever changed an outcome", bet)
		}
	}
	if !evaluator.TurnsOnDealer("lucky_ladies") {
		t.Error("TurnsOnDealer(lucky_ladies) = false; Places names every dealer card for a bet it does not know")
	}
	t.Logf("places named that changed an outcome, by bet: %v", mattered)
}
