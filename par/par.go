// Package par computes PAR sheets: for each side bet's pay table, the
// probability and pay of every outcome, and the house edge. Regulators and
// the game's supplier publish these figures, so a sheet that matches them
// shows the pay tables and the evaluator's rules are right.
//
// 21+3 and Blazing 7's are enumerated exactly over the shoe; Push 22 is
// computed by recursion over the dealer's draws from the finite shoe; Pot of
// Gold depends on how players play, so it is simulated with the Free Bet
// basic strategy and a fixed seed, and its standard error is given.
//
//	sheet := par.Sheet{Decks: 6}
//	sheet.Bets = append(sheet.Bets, par.TwentyOnePlusThree(6, evaluator.Classic21Plus3))
package par

import "math"

// Sheet is a PAR sheet for one shoe size.
type Sheet struct {
	Decks int   `json:"decks"`
	Bets  []Bet `json:"bets"`
}

// Bet is the PAR sheet of one pay table.
type Bet struct {
	Bet      string `json:"bet"`
	Paytable string `json:"paytable"`
	// Rule names the dealer rule the figures depend on, where they do.
	Rule string `json:"rule,omitempty"`
	// Method is "enumeration", "recursion" or "simulation".
	Method string `json:"method"`
	// HouseEdge is the casino's expected win per unit wagered.
	HouseEdge float64 `json:"house_edge"`
	// StdError is the standard error of a simulated house edge.
	StdError float64 `json:"std_error,omitempty"`
	// Rounds and Seed describe a simulation.
	Rounds int    `json:"rounds,omitempty"`
	Seed   uint64 `json:"seed,omitempty"`
	// Meter is the progressive meter the percentage awards are priced at.
	Meter    float64   `json:"meter,omitempty"`
	Outcomes []Outcome `json:"outcomes"`
}

// Outcome is one line of a PAR sheet.
type Outcome struct {
	Name        string  `json:"name"`
	Probability float64 `json:"probability"`
	// Pays is the player's net win per unit wagered: the odds "to 1", or
	// -1 for a loss.
	Pays float64 `json:"pays"`
}

// finish sets the house edge from the outcomes and rounds the figures for
// printing: eight decimals are far beyond what any published sheet gives,
// and keep golden files stable across platforms.
func (b *Bet) finish() {
	ev := 0.0
	for _, o := range b.Outcomes {
		ev += o.Probability * o.Pays
	}
	b.HouseEdge = round8(-ev)
	b.StdError = round8(b.StdError)
	for i := range b.Outcomes {
		b.Outcomes[i].Probability = round8(b.Outcomes[i].Probability)
	}
}

func round8(x float64) float64 { return math.Round(x*1e8) / 1e8 }
