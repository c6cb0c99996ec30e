package tracker

import (
	"encoding/json"
	"fmt"

	"bjmonitor/cards"
	"bjmonitor/game"
)

// ParseRound reads a round record as the monitor writes it (docs/mqtt.md:
// "round"), such as a line of a replay's --out file. A card written "??"
// (seen, never read) or "XX" (face down, never turned) is the zero Card.
// Errors wrap game.ErrRound. The record's "type" and "table", if there,
// are not checked.
func ParseRound(data []byte) (Round, error) {
	var r Round
	if err := json.Unmarshal(data, &r); err != nil {
		return Round{}, fmt.Errorf("%w: %v", game.ErrRound, err)
	}
	read := func(cs []Card, where string) error {
		for i := range cs {
			c := &cs[i]
			switch c.Text {
			case unreadText, faceDownText:
				c.Card = cards.Card{}
			default:
				id, err := cards.Parse(c.Text)
				if err != nil {
					return fmt.Errorf("%w: %s card %d: %v", game.ErrRound, where, i, err)
				}
				c.Card = id
			}
		}
		return nil
	}
	if err := read(r.Dealer, "dealer"); err != nil {
		return Round{}, err
	}
	for _, s := range r.Seats {
		for hi, h := range s.Hands {
			if err := read(h.Cards, fmt.Sprintf("seat %d hand %d", s.Seat, hi)); err != nil {
				return Round{}, err
			}
		}
	}
	if err := r.Game().Validate(); err != nil {
		return Round{}, err
	}
	return r, nil
}

// How a card never read is written.
const (
	unreadText   = "??" // seen face up, its index never read
	faceDownText = "XX" // face down, never turned
)
