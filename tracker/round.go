package tracker

import (
	"fmt"
	"iter"
	"math"
	"slices"
	"strconv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/game"
	"bjmonitor/roundrecord"
	"bjmonitor/vision"
)

type roundState struct {
	id    string
	start int
	// untilCleared: the round ends when the table is cleared, whatever
	// the controller says (EndWhenCleared).
	untilCleared bool
	// emptyEnds: a felt empty for ClearFrames ends it even before any of
	// its cards was counted (EndWhenSeenCleared).
	emptyEnds bool
	// dealtSeen: a round of the tracker's own, opened before the
	// controller was first heard, whose cards were all seen dealt after
	// the felt was seen cleared: a game_start that comes late, while it
	// is open, names it (StartRound).
	dealtSeen bool
	dealer    []*track
	seats     []*seatState
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

// Round is a rebuilt round, as the monitor publishes it: the game's round,
// which the rules check and the evaluator judges, and what the picture
// showed of each of its cards.
type Round struct {
	game.Round
	// StartFrame and EndFrame bound the round in the video.
	StartFrame, EndFrame int
	// Seen is what the picture showed of each card of the round, by the
	// card's place in it (game.Place: the dealer's row is seat 0, hand
	// -1). A card with no entry shows the zero Sighting.
	Seen map[game.Place]Sighting
	// Doubts say what the rules and the picture could not settle about
	// the round as a whole: the controller's messages, the round's
	// bounds, a card that may lie in the dealer's row or a hand. They
	// bear on every wager.
	Doubts []string
	// DealerDoubts say what they could not settle about the dealer's
	// cards alone: a rule the dealer's row breaks, a dealer card never
	// read or reaching past the picture's edge. They bear on the wagers
	// that turn on the dealer's cards (21+3, Push 22), not on the
	// others (DoubtsOn). The round record writes them with the round's
	// own (Doubts), and names them apart (dealer_doubts).
	DealerDoubts []string
	// SeatDoubts say, by seat, what they could not settle about a seat's
	// hands that bears on the seat's wagers: its own hands' doubts, and
	// those of a hand at another seat whose cards lie within reach of
	// its cards (settle).
	SeatDoubts map[int][]string
	// StartUnseen: the monitor began watching after the round started
	// (set by whoever knows: the controller's game_start was not seen), so
	// a wager may have been entered that it never got.
	StartUnseen bool
}

// Sighting is what the picture showed of one card; the round record
// writes it beside the card (roundrecord.Card).
type Sighting struct {
	// Confidence is how sure the reading is: 0 for a card never read.
	Confidence float64
	// Frame is when it was counted; Order its place in the round's
	// dealing order, from 0.
	Frame int
	Order int
	// FaceDown: a card never read lay face down when last seen (a hole
	// card never turned).
	FaceDown bool
	// Sideways: the card lay a quarter turned from its hand, as a
	// double's card does.
	Sideways bool
	// At is the card's centre on the table, in mm.
	At calibration.Point
	// Clipped: the card reached past the edge of the picture, where a
	// card beside it could lie unseen.
	Clipped bool
	// Candidates are the cards it may be where its reading is doubtful
	// (below vision.Confident) for a dispute (its corners were read as
	// two cards), its own among them, in the deck's order; nil where it
	// is sure, or may be any card.
	Candidates []cards.Card
}

// Card is one card of a round as read.
type Card struct {
	// Card is the reading, or the zero Card if it was never read (a hole
	// card never turned).
	Card cards.Card
	Sighting
}

// Text is the card as the round record writes it (roundrecord.CardText):
// its name, or "XX" for a card face down and never turned, or "??" for a
// card seen face up but never read.
func (c Card) Text() string { return roundrecord.CardText(c.Card, c.FaceDown) }

// Cards yields every card of the round with its place: the dealer's, then
// each seat's hands in order.
func (r Round) Cards() iter.Seq2[game.Place, Card] {
	return func(yield func(game.Place, Card) bool) {
		for i, c := range r.Dealer.Cards {
			p := game.Place{Hand: -1, Card: i}
			if !yield(p, Card{c, r.Seen[p]}) {
				return
			}
		}
		for _, s := range r.Seats {
			for hi, h := range s.Hands {
				for i, c := range h.Cards {
					p := game.Place{Seat: s.Seat, Hand: hi, Card: i}
					if !yield(p, Card{c, r.Seen[p]}) {
						return
					}
				}
			}
		}
	}
}

// Card returns the card at p, and whether the round has one there.
func (r Round) Card(p game.Place) (Card, bool) {
	if p.Hand < 0 {
		p.Seat = 0
	}
	cs := r.slot(p.Seat, p.Hand)
	if cs == nil || p.Card < 0 || p.Card >= len(*cs) {
		return Card{}, false
	}
	return Card{(*cs)[p.Card], r.Seen[p]}, true
}

// HandCards returns the cards of hand hi of seat n as read, or the
// dealer's for hand -1; nil if the round has no such hand.
func (r Round) HandCards(n, hi int) []Card {
	if hi < 0 {
		n = 0
	}
	cs := r.slot(n, hi)
	if cs == nil {
		return nil
	}
	out := make([]Card, len(*cs))
	for i, c := range *cs {
		out[i] = Card{c, r.Seen[game.Place{Seat: n, Hand: hi, Card: i}]}
	}
	return out
}

// setHandCards makes cs the cards of hand hi of seat n, or the dealer's for hand
// -1. The hand must exist.
func (r *Round) setHandCards(n, hi int, cs []Card) {
	if hi < 0 {
		n = 0
	}
	slot := r.slot(n, hi)
	if r.Seen == nil {
		r.Seen = map[game.Place]Sighting{}
	}
	for i := range *slot {
		delete(r.Seen, game.Place{Seat: n, Hand: hi, Card: i})
	}
	*slot = nil
	for i, c := range cs {
		*slot = append(*slot, c.Card)
		r.Seen[game.Place{Seat: n, Hand: hi, Card: i}] = c.Sighting
	}
}

// slot returns where the round keeps the cards of hand hi of seat n, or
// the dealer's for hand -1; nil if it has no such hand.
func (r *Round) slot(n, hi int) *[]cards.Card {
	if hi < 0 {
		return &r.Dealer.Cards
	}
	if h := r.hand(n, hi); h != nil {
		return &h.Cards
	}
	return nil
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
		if tr.disputed {
			conf = min(conf, vision.DisputedConfidence)
		}
		// The pips name the other suit of the colour: the card is taken
		// as they say, in doubt, the index's reading its rival. Those of
		// a card known by its rank alone name its suit, and it is taken
		// so, as doubtful as before.
		var other []cards.Card
		if s := tr.pipSuit(id); s != 0 {
			if id.Valid() {
				other = []cards.Card{id}
			}
			id.Suit = s
			conf = min(conf, vision.DisputedConfidence)
		}
		c := Card{Card: id, Sighting: Sighting{Confidence: conf, Frame: tr.confirmAt, Order: order[tr], Sideways: tr.sideways, Clipped: tr.clipped, At: tr.pos}}
		if conf < vision.Confident {
			c.Candidates = tr.candidates(id, other...)
		}
		c.FaceDown = !id.Rank.Valid() && tr.downs > 0 && !tr.faceUp
		return c
	}
	r := Round{Round: game.Round{ID: rs.id}, StartFrame: rs.start, EndFrame: frame, Doubts: slices.Clone(rs.doubts)}
	if why != "" {
		r.Doubts = append(r.Doubts, why)
	}
	var dealer []Card
	for _, tr := range rs.dealer {
		dealer = append(dealer, card(tr))
	}
	r.setHandCards(0, -1, dealer)
	for _, s := range rs.seats {
		gs := game.Seat{Seat: s.n}
		for _, h := range s.hands {
			gs.Hands = append(gs.Hands, game.Hand{SplitFrom: h.from})
		}
		r.Seats = append(r.Seats, gs)
		for hi, h := range s.hands {
			cs := make([]Card, len(h.cards))
			for i, tr := range h.cards {
				cs[i] = card(tr)
				cs[i].Sideways = cs[i].Sideways || turnedInHand(h.cards, i)
			}
			r.setHandCards(s.n, hi, cs)
		}
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

// settle applies the game's rules to the round: it marks doubles, and
// flags what the rules say cannot have happened (game.Round's Violations)
// and what the picture could not show (a card never read, or reaching
// past the picture's edge), lowering the confidence of the cards
// involved. A doubt about a player's hand is the seats' it reaches
// (doubtHand); a doubt about the dealer's cards alone is the dealer's
// row's (DealerDoubts).
func (t *Tracker) settle(r *Round) {
	laid := r.laid()
	for _, s := range r.Seats {
		for hi := range s.Hands {
			t.doubtHand(r, laid, s.Seat, hi, r.settleHand(s.Seat, hi)...)
		}
	}
	for _, v := range r.Violations(t.rules) {
		if v.Hand >= 0 {
			t.doubtHand(r, laid, v.Seat, v.Hand, v.Text)
		} else {
			r.DealerDoubts = append(r.DealerDoubts, v.Text)
		}
		for _, p := range v.Cards {
			if s, ok := r.Seen[p]; ok {
				s.doubt() // the rules say a card here is misread
				r.Seen[p] = s
			}
		}
		if h := r.hand(v.Seat, v.Hand); h != nil && v.Rule == game.DoubleTakesOne {
			h.Doubled = false // the sideways card was no double's
		}
	}
	dealer := r.HandCards(0, -1)
	if slices.ContainsFunc(dealer, func(c Card) bool { return c.Clipped }) {
		r.DealerDoubts = append(r.DealerDoubts, "a dealer card reaches past the picture's edge, where more of the dealer's cards may lie unseen")
		lower(dealer)
		r.setHandCards(0, -1, dealer)
	}
	for _, c := range dealer {
		if !c.Card.Rank.Valid() && !c.FaceDown {
			r.DealerDoubts = append(r.DealerDoubts, "a dealer card was never read")
		}
	}
}

// laid returns where the round's cards lie, by hand (the dealer's is seat
// 0, hand -1), before settle takes any out.
func (r Round) laid() map[game.Place][]calibration.Point {
	out := map[game.Place][]calibration.Point{}
	for p, c := range r.Cards() {
		h := game.Place{Seat: p.Seat, Hand: p.Hand}
		out[h] = append(out[h], c.At)
	}
	return out
}

// doubtReach, in HandMM, is how near another hand's card must lie to a
// doubtful hand's cards for the doubt to bear on it too. A card missing
// from a hand, or taken out of it, may lie counted in another: a card
// joins any hand whose last card lies within HandMM of it (placePlayer),
// and it was dealt within HandMM of its own hand's last card, so the two
// hands' cards lie within twice HandMM; the third allows for a card
// pushed as the next is dealt.
const doubtReach = 3

// doubtHand records doubts about hand hi of seat n, laid out as laid
// says. They bear on seat n's wagers and on those of every seat with a
// card within doubtReach of one of the hand's cards; a dealer's card
// within reach makes them the round's.
func (t *Tracker) doubtHand(r *Round, laid map[game.Place][]calibration.Point, n, hi int, doubts ...string) {
	if len(doubts) == 0 {
		return
	}
	reach := doubtReach * t.cfg.HandMM
	near := func(h game.Place) bool {
		for _, a := range laid[game.Place{Seat: n, Hand: hi}] {
			for _, b := range laid[h] {
				if math.Hypot(a.X-b.X, a.Y-b.Y) <= reach {
					return true
				}
			}
		}
		return false
	}
	if near(game.Place{Hand: -1}) {
		r.Doubts = append(r.Doubts, doubts...)
		return
	}
	if r.SeatDoubts == nil {
		r.SeatDoubts = map[int][]string{}
	}
	for _, s := range r.Seats {
		reached := s.Seat == n
		for h := range s.Hands {
			reached = reached || near(game.Place{Seat: s.Seat, Hand: h})
		}
		if reached {
			r.SeatDoubts[s.Seat] = append(r.SeatDoubts[s.Seat], doubts...)
		}
	}
}

// DoubtsAt returns the doubts that bear on seat n's wagers: the round's,
// the dealer's row's and the seat's. Seat 0, for what is no one seat's
// (the progressive meter, the round itself), gets every doubt of the
// round, each once. It answers as the round record would
// (roundrecord.Record.DoubtsAt).
func (r Round) DoubtsAt(n int) []string { return r.DoubtsOn(n, true) }

// DoubtsOn returns the doubts that bear on what is judged at seat n, as
// DoubtsAt does, but without the dealer's row's own (DealerDoubts) where
// it does not turn on the dealer's cards (dealer false: a Blazing 7's or
// Pot of Gold wager, an entry judged on no cards).
func (r Round) DoubtsOn(n int, dealer bool) []string {
	rec := roundrecord.Record{Doubts: slices.Concat(r.Doubts, r.DealerDoubts), DealerDoubts: r.DealerDoubts}
	for _, s := range r.Seats {
		rec.Seats = append(rec.Seats, roundrecord.Seat{Seat: s.Seat, Doubts: r.SeatDoubts[s.Seat]})
	}
	return rec.DoubtsOn(n, dealer)
}

// settleHand drops the misreads hand hi of seat n could not take, marks a
// double, and returns the doubts the reading of the hand leaves.
func (r *Round) settleHand(n, hi int) []string {
	var doubts []string
	cs, dropped := dropMisreads(r.HandCards(n, hi))
	for _, c := range dropped {
		doubts = append(doubts, fmt.Sprintf("seat %d hand %d: %s (confidence %.2f) not counted: the hand could not take it", n, hi, c.Text(), c.Confidence))
	}
	doubt := func(format string, a ...any) {
		doubts = append(doubts, fmt.Sprintf("seat %d hand %d: ", n, hi)+fmt.Sprintf(format, a...))
		lower(cs)
	}
	for i, c := range cs {
		if c.Sideways {
			if i == 2 {
				r.hand(n, hi).Doubled = true
			} else {
				doubt("card %d lies sideways, but a double takes the third card", i+1)
			}
		}
	}
	for i, c := range cs {
		if !c.Card.Rank.Valid() && !c.FaceDown {
			doubt("card %d lies face up but was never read", i+1)
		}
	}
	if slices.ContainsFunc(cs, func(c Card) bool { return c.Clipped }) {
		doubt("a card reaches past the picture's edge, where more of the hand's cards may lie unseen")
	}
	r.setHandCards(n, hi, cs)
	return doubts
}

// doubtfulRead is the confidence a card is lowered to when the rules or
// the picture put its reading in doubt: below every bar for a sure alert.
const doubtfulRead = 0.5

// lower puts the readings of cs in doubt.
func lower(cs []Card) {
	for i := range cs {
		cs[i].doubt()
	}
}

// doubt puts a reading in doubt: below every bar for a sure alert, and
// the card may be any card, not only its candidates.
func (s *Sighting) doubt() {
	s.Confidence, s.Candidates = min(s.Confidence, doubtfulRead), nil
}

// hand returns hand hi of seat n, or nil if the round has none.
func (r *Round) hand(n, hi int) *game.Hand {
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
	doubtful := func(c Card) bool { return c.Card.Rank.Valid() && c.Confidence < clearRead }
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
	doubtful := func(c Card) bool { return c.Card.Rank.Valid() && !c.Sideways && c.Confidence < clearRead }
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
