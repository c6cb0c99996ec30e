// Package roundrecord is the round record, the JSON a table monitor
// publishes for each round it rebuilt (docs/mqtt.md: "round"): every hand
// with its cards in dealing order, and what the picture showed of each
// card. The tracker writes it, the console shows it, and the test clips'
// scorer reads it back; this package is its one layout, and it needs no
// OpenCV, so a consumer of the records stays free of cgo.
//
// A Record is the layout as it stands, less the "type" and "table" that
// the result writer (alerts.Encode) puts first. A card is written by its
// name ("7S"), or "XX" for a card face down and never turned, or "??" for
// a card seen face up but never read, or its rank and "?" ("8?") for a
// card known by its rank alone: its pips counted, its index never read
// (CardText). Record.Round reads the
// cards and checks that a table could hold the round; its cards stand
// where the record's do, so each one's sighting is at hand:
//
//	rec, err := roundrecord.Parse(line) // the layout, as a console shows it
//	if err != nil { ... }
//	round, err := rec.Round() // the cards read, the seats and splits checked
//	if err != nil { ... }
//	first := round.Seats[0].Hands[0].Cards[0] // seen as rec.Seats[0].Hands[0].Cards[0]
//
// Errors from Parse and Round wrap game.ErrRound.
package roundrecord
