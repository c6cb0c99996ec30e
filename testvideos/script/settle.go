package script

import (
	"math"

	"bjmonitor/controller"
	"bjmonitor/evaluator"
)

// settle enters the payouts and awards of the outcomes that match, with a
// wrong entry now and then when Config.ErrorRate asks for it.
func (w *writer) settle(r *Round, which func(evaluator.Outcome) bool) {
	for _, o := range r.Outcomes {
		if !which(o) {
			continue
		}
		entered, kind := w.enter(r, o)
		if kind != "" {
			w.s.Injected = append(w.s.Injected, Injected{Round: r.ID, Seat: o.Seat, Bet: string(o.Bet), Kind: kind, Expected: o.Win, Entered: entered.Amount})
		}
		if entered.Type != "" {
			w.event(entered)
		}
	}
}

// enter returns the controller entry for an outcome, and the kind of error
// injected into it, if any. An entry with no Type is not entered at all.
func (w *writer) enter(r *Round, o evaluator.Outcome) (controller.Event, string) {
	right := controller.Event{Type: controller.Payout, Round: r.ID, Seat: o.Seat, Bet: string(o.Bet), Amount: o.Win}
	if o.Award != "" {
		right.Type, right.Award, right.Bet = controller.ProgressiveAward, o.Award, ""
	}
	if !o.Won() {
		right.Type = "" // a lost wager is collected: nothing is entered
	}
	if w.errs.Float64() >= w.cfg.ErrorRate {
		return right, ""
	}
	var kinds []string
	switch {
	case o.Award != "":
		kinds = []string{WrongAward, MissedPayout}
	case o.Result == "three_sevens":
		kinds = []string{WrongAward, Overpaid, Underpaid, MissedPayout}
	case o.Won():
		kinds = []string{Overpaid, Underpaid, MissedPayout}
	default:
		kinds = []string{Overpaid}
	}
	kind := kinds[w.errs.IntN(len(kinds))]
	wrong := right
	switch kind {
	case MissedPayout:
		wrong.Type = ""
		wrong.Amount = 0
	case Overpaid:
		wrong.Type = controller.Payout
		wrong.Amount = o.Win + o.Wager*float64(1+w.errs.IntN(9))
	case Underpaid:
		wrong.Amount = math.Max(0.5*o.Win, o.Win-o.Wager*float64(1+w.errs.IntN(int(max(1, o.Pays-1)))))
		wrong.Amount = math.Round(wrong.Amount*100) / 100
	case WrongAward:
		// The dealer pressed the other award button: 10% for 100%, 100% for
		// 10%, or an award for three 7s of mixed colours (200 to 1).
		share, award := w.cfg.Tables.Blazing7s.SameColour, "10%"
		if o.Award == "10%" {
			share, award = w.cfg.Tables.Blazing7s.SameSuit, "100%"
		}
		wrong = controller.Event{Type: controller.ProgressiveAward, Round: r.ID, Seat: o.Seat, Award: award,
			Amount: math.Round(share*w.meterAtAward(o)*100) / 100}
	}
	return wrong, kind
}

// meterAtAward is the meter a wrongly pressed award button pays from: the
// meter the outcome's own award was priced at, or, for a fixed-odds
// outcome, the meter after this round's awards.
func (w *writer) meterAtAward(o evaluator.Outcome) float64 {
	if o.MeterShare > 0 {
		return o.Win / o.MeterShare
	}
	return w.meter.Value()
}

// injectUnwagered enters, at the error rate, a payout for a bet that no
// one placed at a seat that played.
func (w *writer) injectUnwagered(r *Round, players []int) {
	if w.errs.Float64() >= w.cfg.ErrorRate {
		return
	}
	placed := map[[2]any]bool{}
	for _, wg := range r.Wagers {
		placed[[2]any{wg.Seat, wg.Bet}] = true
	}
	var free []evaluator.Wager
	for _, seat := range players {
		for _, b := range []evaluator.Bet{evaluator.TwentyOnePlusThree, evaluator.Blazing7s} {
			if !placed[[2]any{seat, b}] {
				free = append(free, evaluator.Wager{Seat: seat, Bet: b})
			}
		}
	}
	if len(free) == 0 {
		return
	}
	pick := free[w.errs.IntN(len(free))]
	amount := float64(5 * (1 + w.errs.IntN(9)))
	w.s.Injected = append(w.s.Injected, Injected{Round: r.ID, Seat: pick.Seat, Bet: string(pick.Bet), Kind: PaidWithoutWager, Expected: 0, Entered: amount})
	w.event(controller.Event{Type: controller.Payout, Round: r.ID, Seat: pick.Seat, Bet: string(pick.Bet), Amount: amount})
}
