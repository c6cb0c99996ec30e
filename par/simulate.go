package par

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"bjmonitor/deal"
	"bjmonitor/evaluator"
	"bjmonitor/game"
)

// Simulation sets up the Pot of Gold simulation.
type Simulation struct {
	Rules  game.Rules
	Rounds int
	Seed   uint64
	// Progress, when set, is called now and then with the rounds done.
	Progress func(done, total int)
}

// PotOfGold simulates rounds of Free Bet Blackjack with one player
// following basic strategy from a shoe with a cut card, and judges each
// Pot of Gold wager with the evaluator. The standard error of the house
// edge is that of the mean win over the rounds.
func PotOfGold(ctx context.Context, sim Simulation, t evaluator.PotOfGoldTable) (Bet, error) {
	if sim.Rounds < 1 {
		return Bet{}, fmt.Errorf("rounds %d: want at least 1", sim.Rounds)
	}
	rules := sim.Rules
	rules.Variant = game.FreeBet
	shoe := deal.NewShoe(rules.Decks, rand.New(rand.NewPCG(sim.Seed, 0x9e3779b97f4a7c15)))
	tables := evaluator.PayTables{PotOfGold: t}
	wager := evaluator.Wager{Seat: 1, Bet: evaluator.PotOfGold, Amount: 1}
	counts := map[string]int{}
	var sum, sumSq float64
	const every = 1 << 14
	for n := 0; n < sim.Rounds; n++ {
		if n%every == 0 {
			if err := ctx.Err(); err != nil {
				return Bet{}, err
			}
			if sim.Progress != nil {
				sim.Progress(n, sim.Rounds)
			}
		}
		if shoe.PastCut() {
			shoe.Shuffle()
		}
		r, _ := deal.Play(shoe, rules, []int{1})
		o, err := evaluator.Evaluate(r, rules, wager, tables, 0)
		if err != nil {
			return Bet{}, fmt.Errorf("round %d: %w", n, err)
		}
		counts[o.Result]++
		x := o.Win
		if !o.Won() {
			x = -1
		}
		sum += x
		sumSq += x * x
	}
	if sim.Progress != nil {
		sim.Progress(sim.Rounds, sim.Rounds)
	}
	n := float64(sim.Rounds)
	mean := sum / n
	variance := (sumSq - n*mean*mean) / max(n-1, 1)
	b := Bet{
		Bet: string(evaluator.PotOfGold), Paytable: t.Name, Method: "simulation",
		Rule: rules.String(), Rounds: sim.Rounds, Seed: sim.Seed,
		StdError: math.Sqrt(variance / n),
	}
	most := len(t.Pays)
	for k := deal.MaxHands*2 - 1; k >= 1; k-- { // at most 3 splits and 4 doubles
		name := fmt.Sprintf("%d_lammers", k)
		if counts[name] > 0 || k <= most {
			b.Outcomes = append(b.Outcomes, Outcome{Name: name, Probability: float64(counts[name]) / n, Pays: t.PaysFor(k)})
		}
	}
	b.Outcomes = append(b.Outcomes, Outcome{Name: evaluator.Lose, Probability: float64(counts[evaluator.Lose]) / n, Pays: -1})
	b.finish()
	return b, nil
}
