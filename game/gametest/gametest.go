// Package gametest builds rounds for tests from short specs, so that a
// table of test cases reads like the cards on the felt.
//
//	s := gametest.Seat(t, 3, "7S 5D", "7C 9H split:0", "8D 3C TS double")
package gametest

import (
	"strconv"
	"strings"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/game"
)

// Seat builds seat n from one spec per hand: its cards in dealing order,
// then optionally "split:N" (split from hand N) and "double".
func Seat(tb testing.TB, n int, specs ...string) game.Seat {
	tb.Helper()
	s := game.Seat{Seat: n}
	for _, spec := range specs {
		h := game.Hand{SplitFrom: -1}
		for _, f := range strings.Fields(spec) {
			switch {
			case f == "double":
				h.Doubled = true
			case strings.HasPrefix(f, "split:"):
				from, err := strconv.Atoi(strings.TrimPrefix(f, "split:"))
				if err != nil {
					tb.Fatalf("spec %q: %v", spec, err)
				}
				h.SplitFrom = from
			default:
				c, err := cards.Parse(f)
				if err != nil {
					tb.Fatalf("spec %q: %v", spec, err)
				}
				h.Cards = append(h.Cards, c)
			}
		}
		s.Hands = append(s.Hands, h)
	}
	return s
}
