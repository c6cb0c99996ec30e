package tracker

import (
	"encoding/json"
	"slices"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/game"
	"bjmonitor/roundrecord"
)

// MarshalJSON writes the round record (package roundrecord).
func (r Round) MarshalJSON() ([]byte, error) { return json.Marshal(r.Record()) }

// Record is the round as its record writes it: each hand's total and
// bust are the cards'.
func (r Round) Record() roundrecord.Record {
	write := func(cs []Card) []roundrecord.Card {
		out := make([]roundrecord.Card, len(cs))
		for i, c := range cs {
			out[i] = cardRecord(c)
		}
		return out
	}
	rec := roundrecord.Record{ID: r.ID, StartFrame: r.StartFrame, EndFrame: r.EndFrame, Dealer: write(r.HandCards(0, -1)),
		Doubts: slices.Concat(r.Doubts, r.DealerDoubts), DealerDoubts: r.DealerDoubts}
	for _, s := range r.Seats {
		sr := roundrecord.Seat{Seat: s.Seat, Doubts: r.SeatDoubts[s.Seat]}
		for hi, h := range s.Hands {
			sc := h.Score()
			sr.Hands = append(sr.Hands, roundrecord.Hand{Cards: write(r.HandCards(s.Seat, hi)), SplitFrom: h.SplitFrom, Doubled: h.Doubled, Busted: sc.Bust(), Total: sc.Total})
		}
		rec.Seats = append(rec.Seats, sr)
	}
	return rec
}

func cardRecord(c Card) roundrecord.Card {
	s := c.Sighting
	return roundrecord.Card{Card: c.Text(), Confidence: s.Confidence, Frame: s.Frame, Order: s.Order,
		FaceDown: s.FaceDown, Sideways: s.Sideways, At: [2]float64{s.At.X, s.At.Y}, Clipped: s.Clipped, Candidates: candidateTexts(s.Candidates)}
}

func candidateTexts(cs []cards.Card) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.String())
	}
	return out
}

// sighting is what a card's record says was seen of it; Record.Round
// has checked its candidates.
func sighting(c roundrecord.Card) Sighting {
	candidates, _ := roundrecord.ParseCandidates(c.Candidates)
	return Sighting{Confidence: c.Confidence, Frame: c.Frame, Order: c.Order,
		FaceDown: c.FaceDown, Sideways: c.Sideways, At: calibration.Point{X: c.At[0], Y: c.At[1]}, Clipped: c.Clipped, Candidates: candidates}
}

// ParseRound reads a round record as the monitor writes it, such as a
// line of a replay's --out file (roundrecord.Parse, then Record.Round),
// with each card's sighting. The record writes the dealer's row's doubts
// among the round's, and names them again apart (dealer_doubts): they
// come back as the dealer's row's (DealerDoubts), the rest as the
// round's (Doubts). Errors wrap game.ErrRound.
func ParseRound(data []byte) (Round, error) {
	rec, err := roundrecord.Parse(data)
	if err != nil {
		return Round{}, err
	}
	g, err := rec.Round()
	if err != nil {
		return Round{}, err
	}
	r := Round{Round: g, StartFrame: rec.StartFrame, EndFrame: rec.EndFrame, Seen: map[game.Place]Sighting{}, DealerDoubts: rec.DealerDoubts}
	for _, d := range rec.Doubts {
		if !slices.Contains(rec.DealerDoubts, d) {
			r.Doubts = append(r.Doubts, d)
		}
	}
	for i, c := range rec.Dealer {
		r.Seen[game.Place{Hand: -1, Card: i}] = sighting(c)
	}
	for _, s := range rec.Seats {
		if len(s.Doubts) > 0 {
			if r.SeatDoubts == nil {
				r.SeatDoubts = map[int][]string{}
			}
			r.SeatDoubts[s.Seat] = s.Doubts
		}
		for hi, h := range s.Hands {
			for i, c := range h.Cards {
				r.Seen[game.Place{Seat: s.Seat, Hand: hi, Card: i}] = sighting(c)
			}
		}
	}
	return r, nil
}
