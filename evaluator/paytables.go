package evaluator

import (
	"fmt"
	"math"
)

// PayTables holds one pay table for each side bet a table offers.
type PayTables struct {
	TwentyOnePlusThree ThreeCardTable
	Blazing7s          Blazing7sTable
	Push22             Push22Table
	PotOfGold          PotOfGoldTable
}

// DefaultPayTables are the tables DESIGN.md names as defaults.
func DefaultPayTables() PayTables {
	return PayTables{
		TwentyOnePlusThree: Classic21Plus3,
		Blazing7s:          DefaultBlazing7s,
		Push22:             DefaultPush22,
		PotOfGold:          DefaultPotOfGold,
	}
}

// Validate reports the first pay-table entry that cannot be right.
func (p PayTables) Validate() error {
	if err := p.TwentyOnePlusThree.Validate(); err != nil {
		return err
	}
	if err := p.Blazing7s.Validate(); err != nil {
		return err
	}
	if err := p.Push22.Validate(); err != nil {
		return err
	}
	return p.PotOfGold.Validate()
}

// PayTableError names the entry of a pay table that is wrong.
type PayTableError struct {
	Table, Field string
	Value        any
	Reason       string
}

func (e *PayTableError) Error() string {
	return fmt.Sprintf("pay table %s: %s = %v: %s", e.Table, e.Field, e.Value, e.Reason)
}

func checkPays(table, field string, v float64) error {
	if math.IsNaN(v) || v < 0 || v > 1e6 {
		return &PayTableError{Table: table, Field: field, Value: v, Reason: "want odds from 0 to 1,000,000 to 1"}
	}
	return nil
}

// ThreeCardTable is a 21+3 pay table, each entry in odds "to 1".
type ThreeCardTable struct {
	Name          string
	Flush         float64
	Straight      float64
	ThreeOfAKind  float64
	StraightFlush float64
	// SuitedThreeOfAKind, when 0, pays suited trips as three of a kind.
	SuitedThreeOfAKind float64
}

// The 21+3 pay tables in the regulator's text.
var (
	Classic21Plus3 = ThreeCardTable{Name: "classic", Flush: 9, Straight: 9, ThreeOfAKind: 9, StraightFlush: 9}
	Xtreme21Plus3  = ThreeCardTable{Name: "xtreme", Flush: 5, Straight: 10, ThreeOfAKind: 20, StraightFlush: 30}
)

// Builtin21Plus3 returns the built-in 21+3 table of that name.
func Builtin21Plus3(name string) (ThreeCardTable, bool) {
	switch name {
	case Classic21Plus3.Name:
		return Classic21Plus3, true
	case Xtreme21Plus3.Name:
		return Xtreme21Plus3, true
	}
	return ThreeCardTable{}, false
}

// Pays returns the odds for hand h.
func (t ThreeCardTable) Pays(h ThreeCardHand) float64 {
	switch h {
	case Flush:
		return t.Flush
	case Straight:
		return t.Straight
	case ThreeOfAKind:
		return t.ThreeOfAKind
	case StraightFlush:
		return t.StraightFlush
	case SuitedThreeOfAKind:
		if t.SuitedThreeOfAKind > 0 {
			return t.SuitedThreeOfAKind
		}
		return t.ThreeOfAKind
	}
	return 0
}

// Validate reports a negative or absurd entry.
func (t ThreeCardTable) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"flush", t.Flush}, {"straight", t.Straight}, {"three_of_a_kind", t.ThreeOfAKind}, {"straight_flush", t.StraightFlush}, {"suited_three_of_a_kind", t.SuitedThreeOfAKind}} {
		if err := checkPays("21+3 "+t.Name, f.name, f.v); err != nil {
			return err
		}
	}
	return nil
}

// Blazing7sTable is the Blazing 7's pay table.
type Blazing7sTable struct {
	Name string
	// One, Two and Three are the odds for one, two and three 7s.
	One, Two, Three float64
	// SameColour and SameSuit are the awards for three 7s of one colour
	// and of one suit, as fractions of the meter (0.10 and 1.00).
	SameColour, SameSuit float64
	// ForOne: the odds are "for 1" (the wager is part of the payout)
	// rather than "to 1"; some jurisdictions print them so. The regulator's
	// text says "a 1", to 1.
	ForOne bool
}

// DefaultBlazing7s is the regulator's table, in odds to 1.
var DefaultBlazing7s = Blazing7sTable{Name: "standard", One: 2, Two: 25, Three: 200, SameColour: 0.10, SameSuit: 1.00}

func (t Blazing7sTable) pays(s sevens) float64 {
	switch s {
	case sevenOne:
		return t.One
	case sevenTwo:
		return t.Two
	case sevenThree:
		return t.Three
	}
	return 0
}

// win is the win per unit wagered for a fixed-odds result.
func (t Blazing7sTable) win(s sevens) float64 {
	p := t.pays(s)
	if t.ForOne && p > 0 {
		return p - 1
	}
	return p
}

// Validate reports a negative or absurd entry.
func (t Blazing7sTable) Validate() error {
	name := "blazing7s " + t.Name
	for _, f := range []struct {
		name string
		v    float64
	}{{"one_seven", t.One}, {"two_sevens", t.Two}, {"three_sevens", t.Three}} {
		if err := checkPays(name, f.name, f.v); err != nil {
			return err
		}
		if t.ForOne && f.v > 0 && f.v < 1 {
			return &PayTableError{Table: name, Field: f.name, Value: f.v, Reason: "odds 'for 1' must be at least 1"}
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"same_colour", t.SameColour}, {"same_suit", t.SameSuit}} {
		if math.IsNaN(f.v) || f.v < 0 || f.v > 1 {
			return &PayTableError{Table: name, Field: f.name, Value: f.v, Reason: "want a fraction of the meter from 0 to 1"}
		}
	}
	return nil
}

// Push22Table is the Push 22 pay table.
type Push22Table struct {
	Name     string
	Dealer22 float64 // odds when the dealer ends on 22
}

// DefaultPush22 pays 11 to 1.
var DefaultPush22 = Push22Table{Name: "standard", Dealer22: 11}

// Validate reports a negative or absurd entry.
func (t Push22Table) Validate() error { return checkPays("push22 "+t.Name, "pays", t.Dealer22) }

// PotOfGoldTable is the Pot of Gold pay table.
type PotOfGoldTable struct {
	Name string
	// Pays[i] is the odds for i+1 lammers; the last entry also pays any
	// greater number.
	Pays []float64
}

// DefaultPotOfGold is 1→3, 2→12, 3→30, 4→60, 5→100, 6→300, 7 or more→1000.
var DefaultPotOfGold = PotOfGoldTable{Name: "standard", Pays: []float64{3, 12, 30, 60, 100, 300, 1000}}

// PaysFor returns the odds for n lammers.
func (t PotOfGoldTable) PaysFor(n int) float64 {
	if n <= 0 || len(t.Pays) == 0 {
		return 0
	}
	return t.Pays[min(n, len(t.Pays))-1]
}

// Validate reports an empty table or a negative entry.
func (t PotOfGoldTable) Validate() error {
	name := "potofgold " + t.Name
	if len(t.Pays) == 0 {
		return &PayTableError{Table: name, Field: "pays", Value: t.Pays, Reason: "want at least the odds for one lammer"}
	}
	for i, v := range t.Pays {
		if err := checkPays(name, fmt.Sprintf("pays[%d]", i), v); err != nil {
			return err
		}
	}
	return nil
}
