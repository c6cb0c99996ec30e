package tracker

import (
	"encoding/json"
	"fmt"

	"bjmonitor/cards"
	"bjmonitor/game"
)

// roundRecord is the layout of a round record (docs/mqtt.md: "round"),
// less the "type" and "table" the result writer adds: the seats, hands
// and cards of the round, each card with what was seen of it.
type roundRecord struct {
	ID         string       `json:"round"`
	StartFrame int          `json:"start_frame"`
	EndFrame   int          `json:"end_frame"`
	Dealer     []cardRecord `json:"dealer"`
	Seats      []seatRecord `json:"seats"`
	Doubts     []string     `json:"doubts,omitempty"`
}

type seatRecord struct {
	Seat  int          `json:"seat"`
	Hands []handRecord `json:"hands"`
}

// handRecord is a hand; its total and bust are the cards', written for
// the reader's sake.
type handRecord struct {
	Cards     []cardRecord `json:"cards"`
	SplitFrom int          `json:"split_from"`
	Doubled   bool         `json:"doubled,omitempty"`
	Busted    bool         `json:"busted,omitempty"`
	Total     int          `json:"total"`
}

// cardRecord is a card as Card.Text writes it, and what was seen of it.
type cardRecord struct {
	Card string `json:"card"`
	Sighting
}

// MarshalJSON writes the round record; a round, seat or hand with no
// cards lists none as [], never null.
func (r Round) MarshalJSON() ([]byte, error) {
	rec := roundRecord{ID: r.ID, StartFrame: r.StartFrame, EndFrame: r.EndFrame, Dealer: []cardRecord{}, Seats: []seatRecord{}, Doubts: r.Doubts}
	write := func(cs []Card) []cardRecord {
		out := make([]cardRecord, len(cs))
		for i, c := range cs {
			out[i] = cardRecord{c.Text(), c.Sighting}
		}
		return out
	}
	rec.Dealer = write(r.HandCards(0, -1))
	for _, s := range r.Seats {
		sr := seatRecord{Seat: s.Seat, Hands: []handRecord{}}
		for hi, h := range s.Hands {
			sc := h.Score()
			sr.Hands = append(sr.Hands, handRecord{Cards: write(r.HandCards(s.Seat, hi)), SplitFrom: h.SplitFrom, Doubled: h.Doubled, Busted: sc.Bust(), Total: sc.Total})
		}
		rec.Seats = append(rec.Seats, sr)
	}
	return json.Marshal(rec)
}

// ParseRound reads a round record as the monitor writes it (docs/mqtt.md:
// "round"), such as a line of a replay's --out file. A card written "??"
// (seen, never read) or "XX" (face down, never turned) is the zero Card.
// A hand's total and bust are its cards'. Errors wrap game.ErrRound. The
// record's "type" and "table", if there, are not checked.
func ParseRound(data []byte) (Round, error) {
	var rec roundRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return Round{}, fmt.Errorf("%w: %v", game.ErrRound, err)
	}
	r := Round{Round: game.Round{ID: rec.ID}, StartFrame: rec.StartFrame, EndFrame: rec.EndFrame, Seen: map[game.Place]Sighting{}, Doubts: rec.Doubts}
	read := func(n, hi int, cs []cardRecord, where string) error {
		row := make([]Card, len(cs))
		for i, c := range cs {
			row[i].Sighting = c.Sighting
			if c.Card == unreadText || c.Card == faceDownText {
				continue
			}
			id, err := cards.Parse(c.Card)
			if err != nil {
				return fmt.Errorf("%w: %s card %d: %v", game.ErrRound, where, i, err)
			}
			row[i].Card = id
		}
		r.setHandCards(n, hi, row)
		return nil
	}
	if err := read(0, -1, rec.Dealer, "dealer"); err != nil {
		return Round{}, err
	}
	for _, s := range rec.Seats {
		gs := game.Seat{Seat: s.Seat}
		for _, h := range s.Hands {
			gs.Hands = append(gs.Hands, game.Hand{SplitFrom: h.SplitFrom, Doubled: h.Doubled})
		}
		r.Seats = append(r.Seats, gs)
	}
	for si, s := range rec.Seats {
		for hi, h := range s.Hands {
			if err := read(r.Seats[si].Seat, hi, h.Cards, fmt.Sprintf("seat %d hand %d", s.Seat, hi)); err != nil {
				return Round{}, err
			}
		}
	}
	if err := r.Validate(); err != nil {
		return Round{}, err
	}
	return r, nil
}
