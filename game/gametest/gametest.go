// Package gametest builds rounds for tests from short specs, so that a
// table of test cases reads like the cards on the felt.
//
//	s := gametest.Seat(t, 3, "7S 5D", "7C 9H split:0", "8D 3C TS double")
//
// A card is written as the round record writes it: "7S", "8?" for a
// card known by its rank alone, or "??" for a card never read.
package gametest

import (
	"strconv"
	"strings"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/game"
)

// Cards reads cards separated by spaces, such as a dealer's row "TH 6C 8?".
func Cards(tb testing.TB, spec string) []cards.Card {
	tb.Helper()
	var out []cards.Card
	for _, f := range strings.Fields(spec) {
		var c cards.Card
		if f == "??" {
			out = append(out, c)
			continue
		}
		if err := c.UnmarshalText([]byte(f)); err != nil {
			tb.Fatalf("spec %q: %v", spec, err)
		}
		out = append(out, c)
	}
	return out
}

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
				h.Cards = append(h.Cards, Cards(tb, f)...)
			}
		}
		s.Hands = append(s.Hands, h)
	}
	return s
}
