package par

import (
	"context"
	"math"
	"testing"

	"bjmonitor/evaluator"
	"bjmonitor/game"
)

// Published figures the sheet must match to 4 decimals (DESIGN.md, Bars).
func TestPublishedFigures(t *testing.T) {
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"21+3 classic, 6 decks, house edge", TwentyOnePlusThree(6, evaluator.Classic21Plus3).HouseEdge, 0.032386},
		{"21+3 classic, 8 decks, house edge", TwentyOnePlusThree(8, evaluator.Classic21Plus3).HouseEdge, 0.027360},
		{"21+3 Xtreme, 6 decks, house edge", TwentyOnePlusThree(6, evaluator.Xtreme21Plus3).HouseEdge, 0.133896},
		{"dealer ends on 22, 6 decks, H17", outcome(t, Push22(6, evaluator.DefaultPush22, true), "22"), 0.073536},
		// Wizard of Odds, 21+3 version 1, 6 decks: 292,896 flushes in 5,013,320 hands.
		{"21+3, 6 decks, flush", outcome(t, TwentyOnePlusThree(6, evaluator.Classic21Plus3), "flush"), 292896.0 / 5013320},
		{"21+3, 6 decks, straight flush", outcome(t, TwentyOnePlusThree(6, evaluator.Classic21Plus3), "straight_flush"), 10368.0 / 5013320},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if math.Abs(tt.got-tt.want) >= 0.5e-6 {
				t.Errorf("got %.8f, want %.6f", tt.got, tt.want)
			}
		})
	}
}

func outcome(tb testing.TB, b Bet, name string) float64 {
	tb.Helper()
	for _, o := range b.Outcomes {
		if o.Name == name {
			return o.Probability
		}
	}
	tb.Fatalf("%s sheet has no outcome %q", b.Bet, name)
	return 0
}

func TestProbabilitiesSumToOne(t *testing.T) {
	sheets := []Bet{
		TwentyOnePlusThree(1, evaluator.Classic21Plus3),
		TwentyOnePlusThree(6, evaluator.ThreeCardTable{Name: "suited", Flush: 5, Straight: 10, ThreeOfAKind: 30, StraightFlush: 40, SuitedThreeOfAKind: 100}),
		Blazing7s(6, evaluator.DefaultBlazing7s, true, 1000),
		Blazing7s(8, evaluator.DefaultBlazing7s, false, 1000),
		Push22(6, evaluator.DefaultPush22, false),
	}
	for _, b := range sheets {
		sum := 0.0
		for _, o := range b.Outcomes {
			sum += o.Probability
		}
		if math.Abs(sum-1) > 1e-7 {
			t.Errorf("%s %s: probabilities sum to %.9f", b.Bet, b.Paytable, sum)
		}
	}
}

func TestSuitedTripsSplitOut(t *testing.T) {
	// With one deck there are no suited trips; with six, 13*4*C(6,3).
	b := TwentyOnePlusThree(6, evaluator.ThreeCardTable{Name: "suited", Flush: 5, Straight: 10, ThreeOfAKind: 30, StraightFlush: 40, SuitedThreeOfAKind: 100})
	if got, want := outcome(t, b, "suited_three_of_a_kind"), 1040.0/5013320; math.Abs(got-want) > 1e-8 {
		t.Errorf("suited trips = %.8f, want %.8f", got, want)
	}
}

func TestBlazing7s(t *testing.T) {
	b := Blazing7s(6, evaluator.DefaultBlazing7s, false, 1000)
	// The first two cards decide one or two 7s exactly.
	n, s := 312.0, 24.0
	if got, want := outcome(t, b, "one_seven"), 2*s/n*(n-s)/(n-1); math.Abs(got-want) > 1e-8 {
		t.Errorf("one 7 = %.8f, want %.8f", got, want)
	}
	two := s / n * (s - 1) / (n - 1)
	three := outcome(t, b, "three_sevens") + outcome(t, b, "three_sevens_same_colour") + outcome(t, b, "three_sevens_same_suit")
	if got, want := three, two*(s-2)/(n-2); math.Abs(got-want) > 1e-8 {
		t.Errorf("three 7s = %.8f, want %.8f", got, want)
	}
	// Same suit: the second and third 7 match the first's suit.
	if got, want := outcome(t, b, "three_sevens_same_suit"), s/n*5/(n-1)*4/(n-2); math.Abs(got-want) > 1e-8 {
		t.Errorf("three suited 7s = %.8f, want %.8f", got, want)
	}
	// At a hole-card table a dealer blackjack takes some third cards away.
	hole := Blazing7s(6, evaluator.DefaultBlazing7s, true, 1000)
	if outcome(t, hole, "three_sevens") >= outcome(t, b, "three_sevens") {
		t.Error("the dealer's peek did not lower the chance of three 7s")
	}
	forOne := evaluator.DefaultBlazing7s
	forOne.ForOne = true
	if got := Blazing7s(6, forOne, true, 1000); got.HouseEdge <= hole.HouseEdge {
		t.Errorf("paying for 1 gave house edge %v, not above %v", got.HouseEdge, hole.HouseEdge)
	}
}

// The recursion and a simulation of the same dealer must agree.
func TestPush22AgainstSimulation(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	for _, h17 := range []bool{true, false} {
		exact := outcome(t, Push22(6, evaluator.DefaultPush22, h17), "22")
		rules := game.Rules{Variant: game.FreeBet, Decks: 6, HitSoft17: h17, HoleCard: true}
		got, n := simulateDealer22(rules, 400000, 7)
		se := math.Sqrt(exact * (1 - exact) / float64(n))
		if math.Abs(got-exact) > 4*se {
			t.Errorf("H17=%v: simulated %.5f, recursion %.5f (4 standard errors = %.5f)", h17, got, exact, 4*se)
		}
	}
}

func TestPotOfGold(t *testing.T) {
	sim := Simulation{Rules: game.DefaultRules(), Rounds: 200000, Seed: 3}
	calls := 0
	sim.Progress = func(done, total int) { calls++ }
	b, err := PotOfGold(context.Background(), sim, evaluator.DefaultPotOfGold)
	if err != nil {
		t.Fatal(err)
	}
	if calls < 2 {
		t.Errorf("progress called %d times", calls)
	}
	// The bet can only win when the first two cards allow a free bet: a
	// pair other than tens, or a hard 9, 10 or 11.
	possible := freeBetPossible(6)
	won := 1 - outcome(t, b, "lose")
	if won > possible+4*math.Sqrt(possible/float64(sim.Rounds)) {
		t.Errorf("won %.4f of rounds, more than the %.4f where a free bet is possible", won, possible)
	}
	if won < 0.5*possible {
		t.Errorf("won only %.4f of rounds; a free bet is possible in %.4f", won, possible)
	}
	if b.StdError <= 0 || b.StdError > 0.05 {
		t.Errorf("standard error %v", b.StdError)
	}
	again, _ := PotOfGold(context.Background(), Simulation{Rules: game.DefaultRules(), Rounds: 200000, Seed: 3}, evaluator.DefaultPotOfGold)
	if again.HouseEdge != b.HouseEdge {
		t.Errorf("the same seed gave house edges %v and %v", again.HouseEdge, b.HouseEdge)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := PotOfGold(ctx, sim, evaluator.DefaultPotOfGold); err == nil {
		t.Error("a cancelled simulation returned no error")
	}
}
