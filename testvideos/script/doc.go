// Package script writes the screenplay of a synthetic blackjack clip: which
// card lands where and when, when the dealer's hand covers it, when it is
// turned or swept away, and what the dealer enters on the table controller.
// It also keeps the ground truth: every round as it really was, every
// wager's correct outcome, and every wrong entry it injected on purpose.
//
// It knows nothing of pixels. A card's place is logical (seat, hand, its
// index in the hand); the scene package turns places into poses on the felt
// and renders them.
//
//	s, err := script.Write(script.DefaultConfig())
//	for f := 0; f < s.Frames; f++ {
//		for _, p := range s.At(f) { ... }     // the cards on the felt
//		if arm, ok := s.ArmAt(f); ok { ... }  // the dealer's hand
//	}
//
// Rounds are dealt by package deal (casino order, basic strategy) and judged
// by package evaluator, so the ground truth uses the same rules as the
// monitor. The controller log is right by default; Config.ErrorRate makes a
// share of the settlement entries wrong (overpaid, underpaid, missed
// payout, a wrong progressive award, or a payout with no wager). The meter
// readings it enters are always the true meter: a wrong award shows as a
// wrong award, not also as a meter that drifts.
package script
