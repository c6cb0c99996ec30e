// Package alerts reconciles what each side-bet wager should have won with
// what the dealer entered on the table controller, and raises an alert for
// every difference: an overpayment, an underpayment, a missed payout, a
// payout with no wager, a wrong progressive award, a progressive meter
// that disagrees with the monitor's own, or a wager over the table's limit.
//
// An alert carries what a surveillance officer needs to act: the seat and
// bet, the expected and the entered amounts, the cards it is based on with
// how sure each reading is, and the video time. When those cards were read
// with low confidence, or the round broke a rule of the game, the alert's
// severity is "review" rather than "mismatch": a person should look before
// anyone is called to the table. An alert on doubtful cards is sure where
// every card they could be leaves the entry wrong the same way.
//
//	rec := alerts.NewReconciler(alerts.Config{Table: "bj-07", Rules: rules, Tables: tables}, meter)
//	outcomes, found := rec.Round(round, entries)
//
// Alert ids are derived from the table, round, seat, bet and kind, so a
// replay of the same video raises the same ids, and consumers can drop
// duplicates.
package alerts
