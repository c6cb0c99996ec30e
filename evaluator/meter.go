package evaluator

import (
	"fmt"
	"math"
)

// Meter is a Blazing 7's progressive meter. The zero Meter is unusable:
// make one with NewMeter. It is not safe for concurrent use; one table has
// one meter, advanced by one goroutine.
type Meter struct {
	reset        float64
	contribution float64
	value        float64
}

// NewMeter returns a meter at value start, which resets to reset and grows
// by contribution with each wager. A start below the reset begins at the
// reset.
func NewMeter(reset, contribution, start float64) (*Meter, error) {
	if math.IsNaN(reset) || reset < 0 {
		return nil, fmt.Errorf("meter reset %v: want a non-negative amount", reset)
	}
	if math.IsNaN(contribution) || contribution < 0 {
		return nil, fmt.Errorf("meter contribution %v: want a non-negative amount", contribution)
	}
	return &Meter{reset: reset, contribution: contribution, value: max(start, reset)}, nil
}

// Value is the amount the meter shows.
func (m *Meter) Value() float64 { return m.value }

// Reset is the value the meter returns to after a 100% award.
func (m *Meter) Reset() float64 { return m.reset }

// Wager adds one wager's contribution.
func (m *Meter) Wager() { m.value = cents(m.value + m.contribution) }

// Award pays fraction (0.10 or 1.00) of the meter and returns the amount.
// A 100% award resets the meter; a smaller one takes its share away, and
// the meter never falls below the reset.
func (m *Meter) Award(fraction float64) float64 {
	amount := cents(m.value * fraction)
	if fraction >= 1 {
		m.value = m.reset
	} else {
		m.value = max(cents(m.value-amount), m.reset)
	}
	return amount
}

// Set moves the meter to a value read from the controller, never below the
// reset.
func (m *Meter) Set(v float64) { m.value = max(v, m.reset) }
