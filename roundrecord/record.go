package roundrecord

import (
	"encoding/json"
	"fmt"
	"slices"

	"bjmonitor/cards"
	"bjmonitor/game"
)

// Record is a round record, less the "type" and "table" the result writer
// adds: the round's seats, hands and cards, each card with what was seen
// of it.
type Record struct {
	ID string `json:"round"`
	// StartFrame and EndFrame bound the round in the video.
	StartFrame int    `json:"start_frame"`
	EndFrame   int    `json:"end_frame"`
	Dealer     []Card `json:"dealer"`
	Seats      []Seat `json:"seats"`
	// Doubts say what the rules and the picture could not settle about
	// the round as a whole (the dealer's cards, the controller's
	// messages): they bear on every seat.
	Doubts []string `json:"doubts,omitempty"`
	// DealerDoubts are those of Doubts about the dealer's cards alone (a
	// rule the dealer's row breaks, a dealer card never read or reaching
	// past the picture's edge): they bear only on the wagers that turn on
	// the dealer's cards (DoubtsOn).
	DealerDoubts []string `json:"dealer_doubts,omitempty"`
}

// DoubtsAt returns the doubts that bear on seat n's wagers: the round's
// and the seat's. Seat 0, for what is no one seat's, gets every doubt of
// the record, each once.
func (r Record) DoubtsAt(n int) []string { return r.DoubtsOn(n, true) }

// DoubtsOn returns the doubts that bear on what is judged at seat n, as
// DoubtsAt does, but without those about the dealer's cards alone
// (DealerDoubts) where it does not turn on the dealer's cards (dealer
// false: a Blazing 7's or Pot of Gold wager, an entry judged on no
// cards).
func (r Record) DoubtsOn(n int, dealer bool) []string {
	var out []string
	for _, d := range r.Doubts {
		if (dealer || !slices.Contains(r.DealerDoubts, d)) && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	for _, s := range r.Seats {
		if n != 0 && s.Seat != n {
			continue
		}
		for _, d := range s.Doubts {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// Seat is one seat's hands, in the order they came into being.
type Seat struct {
	Seat  int    `json:"seat"`
	Hands []Hand `json:"hands"`
	// Doubts say what the rules and the picture could not settle that
	// bears on this seat's wagers: about its own hands, or about a hand
	// whose cards lie close enough to its cards that a card of one may
	// lie counted in the other.
	Doubts []string `json:"doubts,omitempty"`
}

// Hand is a hand; its Busted and Total are its cards', written for the
// reader's sake, and Round does not read them.
type Hand struct {
	Cards []Card `json:"cards"`
	// SplitFrom is the index of the hand it was split from, or -1. A
	// record that leaves it out says 0.
	SplitFrom int  `json:"split_from"`
	Doubled   bool `json:"doubled,omitempty"`
	Busted    bool `json:"busted,omitempty"`
	Total     int  `json:"total"`
}

// Card is a card as CardText writes it, and what the picture showed of it.
type Card struct {
	Card string `json:"card"`
	// Confidence is how sure the reading is: 0 for a card never read.
	Confidence float64 `json:"confidence"`
	// Frame is when it was counted; Order its place in the round's
	// dealing order, from 0.
	Frame int `json:"frame"`
	Order int `json:"order"`
	// FaceDown: a card never read lay face down when last seen.
	FaceDown bool `json:"face_down,omitempty"`
	// Sideways: the card lay a quarter turned from its hand (a double's).
	Sideways bool `json:"sideways,omitempty"`
	// At is the card's centre on the table, in mm: [x, y].
	At [2]float64 `json:"at"`
	// Clipped: the card reached past the edge of the picture, where a
	// card beside it could lie unseen.
	Clipped bool `json:"clipped,omitempty"`
	// Candidates, where the reading is in dispute (the card's corners
	// were read as two cards), are every card it may be, Card among
	// them (ParseCandidates); none where it may be any card.
	Candidates []string `json:"candidates,omitempty"`
}

// How the record writes a card never read. A card known by its rank
// alone (cards.Card.RankOnly: its pips counted, its index never read)
// is written as its rank and "?", such as "8?".
const (
	UnreadText   = "??" // seen face up, its index never read
	FaceDownText = "XX" // face down, never turned
)

// CardText is card c as the record writes it: its name ("8H", or "8?"
// for a card known by its rank alone), or FaceDownText for a card face
// down and never read, or UnreadText for a card seen face up but never
// read.
func CardText(c cards.Card, faceDown bool) string {
	switch {
	case c.Valid() || c.RankOnly():
		return c.String()
	case faceDown:
		return FaceDownText
	}
	return UnreadText
}

// parseCard reads a card's text: UnreadText and FaceDownText are the zero
// Card, and "8?" a card known by its rank alone.
func parseCard(text string) (cards.Card, error) {
	var c cards.Card
	if text == UnreadText || text == FaceDownText {
		return c, nil
	}
	err := c.UnmarshalText([]byte(text))
	return c, err
}

// checkCandidates reports what is wrong with the candidates of card id.
func checkCandidates(id cards.Card, texts []string) error {
	cs, err := ParseCandidates(texts)
	if err != nil {
		return err
	}
	if len(cs) > 0 && !slices.Contains(cs, id) {
		return fmt.Errorf("candidates %q leave out the card read, %v", texts, id)
	}
	return nil
}

// ParseCandidates reads a card's candidates: each must name a card, rank
// and suit.
func ParseCandidates(texts []string) ([]cards.Card, error) {
	var out []cards.Card
	for _, text := range texts {
		c, err := cards.Parse(text)
		if err != nil || !c.Valid() {
			return nil, fmt.Errorf("candidate %q is not a card", text)
		}
		out = append(out, c)
	}
	return out, nil
}

// MarshalJSON writes the record; a round, seat or hand with no cards
// lists none as [], never null.
func (r Record) MarshalJSON() ([]byte, error) {
	type plain Record // no methods, so no recursion
	p := plain(r)
	p.Dealer = orEmpty(r.Dealer)
	p.Seats = make([]Seat, len(r.Seats))
	for si, s := range r.Seats {
		hands := make([]Hand, len(s.Hands))
		for hi, h := range s.Hands {
			h.Cards = orEmpty(h.Cards)
			hands[hi] = h
		}
		p.Seats[si] = Seat{Seat: s.Seat, Hands: hands, Doubts: s.Doubts}
	}
	return json.Marshal(p)
}

func orEmpty(cs []Card) []Card {
	if cs == nil {
		return []Card{}
	}
	return cs
}

// Parse reads a round record's layout, such as a line of a replay's --out
// file or an MQTT message; the record's "type" and "table", if there, are
// not checked. Round reads its cards. Errors wrap game.ErrRound.
func Parse(data []byte) (Record, error) {
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return Record{}, fmt.Errorf("%w: %v", game.ErrRound, err)
	}
	return r, nil
}

// Round returns the game's round the record holds. Its cards stand where
// the record's do (the dealer's card i is r.Dealer[i], and so on), and a
// card never read ("??" or "XX") is the zero Card. A hand's total and bust
// are its cards'. Errors wrap game.ErrRound: a card whose text names no
// card, or a round no table can hold (game.Round.Validate).
func (r Record) Round() (game.Round, error) {
	read := func(cs []Card, where string) ([]cards.Card, error) {
		var row []cards.Card
		for i, c := range cs {
			id, err := parseCard(c.Card)
			if err != nil {
				return nil, fmt.Errorf("%w: %s card %d: %v", game.ErrRound, where, i, err)
			}
			if err := checkCandidates(id, c.Candidates); err != nil {
				return nil, fmt.Errorf("%w: %s card %d: %v", game.ErrRound, where, i, err)
			}
			row = append(row, id)
		}
		return row, nil
	}
	g := game.Round{ID: r.ID}
	var err error
	if g.Dealer.Cards, err = read(r.Dealer, "dealer"); err != nil {
		return game.Round{}, err
	}
	for _, s := range r.Seats {
		gs := game.Seat{Seat: s.Seat}
		for hi, h := range s.Hands {
			cs, err := read(h.Cards, fmt.Sprintf("seat %d hand %d", s.Seat, hi))
			if err != nil {
				return game.Round{}, err
			}
			gs.Hands = append(gs.Hands, game.Hand{Cards: cs, SplitFrom: h.SplitFrom, Doubled: h.Doubled})
		}
		g.Seats = append(g.Seats, gs)
	}
	if err := g.Validate(); err != nil {
		return game.Round{}, err
	}
	return g, nil
}
