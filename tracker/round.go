package tracker

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/game"
)

type roundState struct {
	id    string
	start int
	// untilCleared: the round ends when the table is cleared, whatever
	// the controller says (EndWhenCleared).
	untilCleared bool
	dealer       []*track
	seats        []*seatState
	// order is every counted card in the order it was dealt.
	order  []*track
	doubts []string
	// skipOrder is a split card already in order (in its pair's place).
	skipOrder *track
}

type seatState struct {
	n     int
	hands []*hand
}

type hand struct {
	from  int
	cards []*track
}

func newRound(id string, frame int) *roundState { return &roundState{id: id, start: frame} }

func (r *roundState) seat(n int) *seatState {
	for _, s := range r.seats {
		if s.n == n {
			return s
		}
	}
	s := &seatState{n: n}
	r.seats = append(r.seats, s)
	slices.SortFunc(r.seats, func(a, b *seatState) int { return a.n - b.n })
	return s
}

// replace puts next where old was in the dealing order.
func (r *roundState) replace(old, next *track) {
	for i, tr := range r.order {
		if tr == old {
			r.order[i] = next
		}
	}
}

// Round is a rebuilt round, as the monitor publishes it.
type Round struct {
	ID string `json:"round"`
	// StartFrame and EndFrame bound the round in the video.
	StartFrame int      `json:"start_frame"`
	EndFrame   int      `json:"end_frame"`
	Dealer     []Card   `json:"dealer"`
	Seats      []Seat   `json:"seats"`
	Doubts     []string `json:"doubts,omitempty"`
	// StartUnseen: the monitor began watching after the round started
	// (set by whoever knows: the controller's game_start was not seen), so
	// a wager may have been entered that it never got.
	StartUnseen bool `json:"-"`
}

// Seat is one player's hands.
type Seat struct {
	Seat  int    `json:"seat"`
	Hands []Hand `json:"hands"`
}

// Hand is one hand as dealt.
type Hand struct {
	Cards     []Card `json:"cards"`
	SplitFrom int    `json:"split_from"`
	Doubled   bool   `json:"doubled,omitempty"`
	Busted    bool   `json:"busted,omitempty"`
	Total     int    `json:"total"`
}

// Card is one card as read.
type Card struct {
	// Card is the reading, or the zero Card if it was never read (a hole
	// card never turned).
	Card       cards.Card `json:"-"`
	Text       string     `json:"card"`
	Confidence float64    `json:"confidence"`
	// Frame is when it was counted; Order its place in the round's
	// dealing order, from 0.
	Frame    int               `json:"frame"`
	Order    int               `json:"order"`
	FaceDown bool              `json:"face_down,omitempty"`
	Sideways bool              `json:"sideways,omitempty"`
	At       calibration.Point `json:"at"`
	// Clipped: the card reached past the edge of the picture, where a
	// card beside it could lie unseen.
	Clipped bool `json:"clipped,omitempty"`
}

// MarshalJSON writes the round record; a round, seat or hand with no
// cards lists none as [], never null.
func (r Round) MarshalJSON() ([]byte, error) {
	type plain Round // no methods, so no recursion
	p := plain(r)
	p.Dealer = nonNil(p.Dealer)
	p.Seats = nonNil(slices.Clone(p.Seats)) // cloned: r's own stay as they are
	for si := range p.Seats {
		s := &p.Seats[si]
		s.Hands = nonNil(slices.Clone(s.Hands))
		for hi := range s.Hands {
			s.Hands[hi].Cards = nonNil(s.Hands[hi].Cards)
		}
	}
	return json.Marshal(p)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Game returns the round as the evaluator takes it.
func (r Round) Game() game.Round {
	g := game.Round{ID: r.ID}
	for _, c := range r.Dealer {
		g.Dealer.Cards = append(g.Dealer.Cards, c.Card)
	}
	for _, s := range r.Seats {
		gs := game.Seat{Seat: s.Seat}
		for _, h := range s.Hands {
			gh := game.Hand{SplitFrom: h.SplitFrom, Doubled: h.Doubled}
			for _, c := range h.Cards {
				gh.Cards = append(gh.Cards, c.Card)
			}
			gs.Hands = append(gs.Hands, gh)
		}
		g.Seats = append(g.Seats, gs)
	}
	return g
}

// LowConfidence reports whether any card the round shows at seat (or the
// dealer's, for seat 0) was read with less than min.
func (r Round) LowConfidence(seat int, min float64) bool {
	check := func(cs []Card) bool {
		return slices.ContainsFunc(cs, func(c Card) bool { return c.Confidence < min })
	}
	if seat == 0 {
		return check(r.Dealer)
	}
	for _, s := range r.Seats {
		if s.Seat == seat {
			for _, h := range s.Hands {
				if check(h.Cards) {
					return true
				}
			}
		}
	}
	return false
}

// close finishes the open round: stale tracks stay on the felt until
// swept, but never join a round again.
func (t *Tracker) close(frame int, why string) Round {
	rs := t.round
	t.round = nil
	if rs.id == "" {
		// Cards held for a game_start that never came: the round is
		// still published, under a name of the tracker's own.
		t.autoRounds++
		rs.id = "auto-" + strconv.Itoa(t.autoRounds)
	}
	r := t.build(rs, frame, why)
	for _, tr := range t.tracks {
		if tr.confirmed || tr.seat >= 0 {
			tr.stale = true
		}
	}
	t.tracks = slices.DeleteFunc(t.tracks, func(tr *track) bool { return tr.gone })
	return r
}

// Snapshot returns the open round as it stands, for display; the round
// goes on.
func (t *Tracker) Snapshot() (Round, bool) {
	if t.round == nil {
		return Round{}, false
	}
	return t.build(t.round, t.frame, ""), true
}

// build turns a round's state into a Round, checked against the rules.
func (t *Tracker) build(rs *roundState, frame int, why string) Round {
	// Cards are counted once still, which a covered card may be later
	// than the next one dealt; the order they were first seen in is the
	// order they were dealt.
	byFirstSeen := func(a, b *track) int { return a.firstSeen - b.firstSeen }
	rs.order = slices.Clone(rs.order)
	slices.SortStableFunc(rs.order, byFirstSeen)
	slices.SortStableFunc(rs.dealer, byFirstSeen)
	for _, s := range rs.seats {
		for _, h := range s.hands {
			slices.SortStableFunc(h.cards, byFirstSeen)
		}
	}
	order := map[*track]int{}
	for i, tr := range rs.order {
		order[tr] = i
	}
	card := func(tr *track) Card {
		id, conf := tr.identity()
		c := Card{Card: id, Confidence: conf, Frame: tr.confirmAt, Order: order[tr], Sideways: tr.sideways, Clipped: tr.clipped, At: tr.pos}
		if !id.Valid() {
			c.FaceDown = tr.downs > 0 && !tr.faceUp
			c.Text = unreadText
			if c.FaceDown {
				c.Text = faceDownText
			}
		} else {
			c.Text = id.String()
		}
		return c
	}
	r := Round{ID: rs.id, StartFrame: rs.start, EndFrame: frame, Doubts: slices.Clone(rs.doubts)}
	if why != "" {
		r.Doubts = append(r.Doubts, why)
	}
	for _, tr := range rs.dealer {
		r.Dealer = append(r.Dealer, card(tr))
	}
	for _, s := range rs.seats {
		out := Seat{Seat: s.n}
		for _, h := range s.hands {
			oh := Hand{SplitFrom: h.from}
			for i, tr := range h.cards {
				c := card(tr)
				c.Sideways = c.Sideways || turnedInHand(h.cards, i)
				oh.Cards = append(oh.Cards, c)
			}
			out.Hands = append(out.Hands, oh)
		}
		r.Seats = append(r.Seats, out)
	}
	t.settle(&r)
	return r
}

// turnedInHand reports whether card i of a hand lies a quarter turned
// from all the hand's other cards, at least two, which lie the same way:
// a double's card, though the frames that judged it sideways may not
// have seen the cards under it (each frame judges a card against the
// cards seen around it then).
func turnedInHand(hand []*track, i int) bool {
	if len(hand) < 3 {
		return false
	}
	ref := hand[0] // one of the others, which all lie as it does
	if i == 0 {
		ref = hand[1]
	}
	for j, o := range hand {
		if j != i && (!quarterTurned(o.angle, hand[i].angle) || quarterTurned(o.angle, ref.angle)) {
			return false
		}
	}
	return true
}

// settle applies the game's rules to the round: it marks doubles and
// busts, and flags what the rules say cannot have happened (game.Round's
// Violations) and what the picture could not show (a card never read, or
// reaching past the picture's edge), lowering the confidence of the cards
// involved.
func (t *Tracker) settle(r *Round) {
	for si := range r.Seats {
		s := &r.Seats[si]
		for hi := range s.Hands {
			r.Doubts = append(r.Doubts, settleHand(s.Seat, hi, &s.Hands[hi])...)
		}
	}
	for _, v := range r.Game().Violations(t.rules) {
		r.Doubts = append(r.Doubts, v.Text)
		for _, p := range v.Cards {
			if c := r.card(p); c != nil {
				c.Confidence = min(c.Confidence, doubtfulRead)
			}
		}
		if h := r.hand(v.Seat, v.Hand); h != nil && v.Rule == game.DoubleTakesOne {
			h.Doubled = false // the sideways card was no double's
		}
	}
	if slices.ContainsFunc(r.Dealer, func(c Card) bool { return c.Clipped }) {
		r.Doubts = append(r.Doubts, "a dealer card reaches past the picture's edge, where more of the dealer's cards may lie unseen")
		lower(r.Dealer)
	}
	for _, c := range r.Dealer {
		if !c.Card.Valid() && !c.FaceDown {
			r.Doubts = append(r.Doubts, "a dealer card was never read")
		}
	}
}

// settleHand drops the misreads a hand could not take, marks a double and
// the total, and returns the doubts the reading of the hand leaves.
func settleHand(seat, hi int, h *Hand) []string {
	var doubts []string
	doubt := func(format string, a ...any) {
		doubts = append(doubts, fmt.Sprintf("seat %d hand %d: ", seat, hi)+fmt.Sprintf(format, a...))
		lower(h.Cards)
	}
	var dropped []Card
	h.Cards, dropped = dropMisreads(h.Cards)
	for _, c := range dropped {
		doubts = append(doubts, fmt.Sprintf("seat %d hand %d: %s (confidence %.2f) not counted: the hand could not take it", seat, hi, c.Text, c.Confidence))
	}
	for i, c := range h.Cards {
		if c.Sideways {
			if i == 2 {
				h.Doubled = true
			} else {
				doubt("card %d lies sideways, but a double takes the third card", i+1)
			}
		}
	}
	for i, c := range h.Cards {
		if !c.Card.Valid() && !c.FaceDown {
			doubt("card %d lies face up but was never read", i+1)
		}
	}
	if slices.ContainsFunc(h.Cards, func(c Card) bool { return c.Clipped }) {
		doubt("a card reaches past the picture's edge, where more of the hand's cards may lie unseen")
	}
	sc := cards.Score(cardsOf(h.Cards))
	h.Total, h.Busted = sc.Total, sc.Bust()
	return doubts
}

// doubtfulRead is the confidence a card is lowered to when the rules or
// the picture put its reading in doubt: below every bar for a sure alert.
const doubtfulRead = 0.5

func lower(cs []Card) {
	for i := range cs {
		cs[i].Confidence = min(cs[i].Confidence, doubtfulRead)
	}
}

// card returns the card at p, or nil if the round has none there.
func (r *Round) card(p game.Place) *Card {
	cs := r.Dealer
	if p.Hand >= 0 {
		h := r.hand(p.Seat, p.Hand)
		if h == nil {
			return nil
		}
		cs = h.Cards
	}
	if p.Card < 0 || p.Card >= len(cs) {
		return nil
	}
	return &cs[p.Card]
}

// hand returns hand hi of seat n, or nil if the round has none.
func (r *Round) hand(n, hi int) *Hand {
	for si := range r.Seats {
		if s := &r.Seats[si]; s.Seat == n && hi >= 0 && hi < len(s.Hands) {
			return &s.Hands[hi]
		}
	}
	return nil
}

func cardsOf(cs []Card) []cards.Card {
	out := make([]cards.Card, len(cs))
	for i, c := range cs {
		out[i] = c.Card
	}
	return out
}

// dropMisreads takes out of a hand the cards only ever read doubtfully
// that cannot be there: a card that lies back among the hand's cards
// instead of further along it (a dealer lays each card past the one
// before), a card besides the one a double takes (a doubled hand holds
// exactly three, the third sideways), or a card after the hand busted.
// Such a reading comes from a corner where two cards overlap, which the
// model sees as an index. A card read clearly is never taken out: the
// rules then only raise a doubt.
func dropMisreads(cs []Card) (kept, dropped []Card) {
	cs, dropped = dropBehind(cs)
	kept, more := dropByRules(cs)
	return kept, append(dropped, more...)
}

// dropBehind takes out the doubtful cards, sideways or not, that lie no
// further along the hand than every card dealt before them. The hand's
// direction is from its first clearly read card to its last; a hand with
// fewer than two, or with its clear cards in one place, keeps all.
func dropBehind(cs []Card) (kept, dropped []Card) {
	doubtful := func(c Card) bool { return c.Card.Valid() && c.Confidence < clearRead }
	first, last := -1, -1
	for i, c := range cs {
		if !doubtful(c) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return cs, nil
	}
	o := cs[first].At
	dx, dy := cs[last].At.X-o.X, cs[last].At.Y-o.Y
	n := math.Hypot(dx, dy)
	if n < minSpreadMM {
		return cs, nil
	}
	along := func(c Card) float64 { return ((c.At.X-o.X)*dx + (c.At.Y-o.Y)*dy) / n }
	reach := math.Inf(-1) // the furthest along of the cards dealt so far
	for _, c := range cs {
		if len(kept) > 0 && doubtful(c) && along(c) <= reach {
			dropped = append(dropped, c)
			continue
		}
		kept = append(kept, c)
		reach = max(reach, along(c))
	}
	return kept, dropped
}

// minSpreadMM is how far a hand's cards must spread for dropBehind to
// tell its direction.
const minSpreadMM = 8.0

// dropByRules applies the game's rules: a doubled hand takes one card,
// a busted hand none.
func dropByRules(cs []Card) (kept, dropped []Card) {
	doubtful := func(c Card) bool { return c.Card.Valid() && !c.Sideways && c.Confidence < clearRead }
	sideways := 0
	for _, c := range cs {
		if c.Sideways {
			sideways++
		}
	}
	if sideways == 1 && len(cs) > 3 {
		for _, c := range cs {
			if doubtful(c) {
				dropped = append(dropped, c)
			} else {
				kept = append(kept, c)
			}
		}
		if len(kept) == 3 && kept[2].Sideways {
			return kept, dropped
		}
		kept, dropped = nil, nil
	}
	for len(cs) > 2 && doubtful(cs[len(cs)-1]) && cards.Score(cardsOf(cs[:len(cs)-1])).Bust() {
		dropped = append(dropped, cs[len(cs)-1])
		cs = cs[:len(cs)-1]
	}
	return cs, dropped
}
