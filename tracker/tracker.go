package tracker

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/game"
	"bjmonitor/vision"
)

// Config tunes the tracker. DefaultConfig gives values for a frame rate.
type Config struct {
	// StableFrames: a card counts once seen this many frames, still.
	StableFrames int
	// MatchMM: an observation continues a card within this distance.
	MatchMM float64
	// StillMM: a card is still while it moves less than this.
	StillMM float64
	// LostFrames: a counted card not seen for this long has been swept.
	LostFrames int
	// ClearFrames: without a controller, an empty felt this long ends the
	// round.
	ClearFrames int
	// HandMM: a new card joins a hand whose last card lies this close.
	HandMM float64
	// SplitFrames: a card that vanished this recently and shows up again
	// away from its pair is the split card.
	SplitFrames int
	// CountConfidence: a face-up card counts only once its reading is this
	// sure; what the model cannot read at all (chips, printing, a sleeve)
	// never becomes a card.
	CountConfidence float64
	// Controlled: the controller's game_start and game_end mark rounds
	// from the start, so a cleared table ends nothing.
	Controlled bool
}

// DefaultConfig returns a configuration for video at fps frames a second.
func DefaultConfig(fps float64) Config {
	f := func(s float64) int { return max(1, int(math.Round(s*fps))) }
	return Config{
		StableFrames:    f(0.2),
		MatchMM:         12, // well under the 22 mm between cards of a hand
		StillMM:         4,
		LostFrames:      f(1.0),
		ClearFrames:     f(1.5),
		HandMM:          50,
		SplitFrames:     f(1.5),
		CountConfidence: 0.5,
	}
}

// Tracker rebuilds rounds from observations.
type Tracker struct {
	cfg    Config
	table  *calibration.Table
	rules  game.Rules
	tracks []*track
	nextID int
	round  *roundState
	// controlled: the controller marks rounds; a cleared table does not.
	controlled bool
	autoRounds int
	emptySince int
	// feltCleared: the felt has lain empty for ClearFrames since the
	// tracker began, with no gap in the frames since; cards that come
	// after it were seen dealt, not found lying there.
	feltCleared bool
	frame       int
	// span is how many video frames the frame being observed stands for:
	// the caller may read only some frames (a lower analysis rate, or
	// frames dropped while it was busy), and a card seen in every frame
	// read has been seen all that time.
	span int
}

type track struct {
	id         int
	pos        calibration.Point
	stillPos   calibration.Point
	stillSince int
	angle      float64
	sideways   bool
	sideVotes  int
	clipped    bool // seen reaching past the picture's edge
	firstSeen  int
	lastSeen   int
	// seen, reads, weakReads and downs count video frames, not frames
	// read: each sighting weighs the frames its frame stands for.
	seen      int
	votes     map[cards.Card]*tally
	reads     int // frames with a clear reading
	weak      map[cards.Card]*tally
	weakReads int
	// ranks tallies the readings of the card's rank alone (its pips
	// counted, its index unread); rankReads counts their frames, which
	// are blanks too.
	ranks     map[cards.Card]*tally
	rankReads int
	// rivals are the other cards the corners of its clear readings were
	// read as (vision.Observation.Rivals).
	rivals []cards.Card
	// pips counts the sightings whose pips were read surely as a suit,
	// by what they said (vision.Observation.Pips).
	pips      map[cards.Card]int
	downs     int  // frames face down
	blanks    int  // frames face up, unread: a card by its outline alone
	faints    int  // frames read only below vision.Unreadable
	faceUp    bool // last seen face up
	confirmed bool
	confirmAt int
	disputed  bool // read surely as another card at its far corner (disputeBy)
	gone      bool
	// stale tracks belong to a round already closed: they keep matching
	// observations so a card left on the felt is not counted again.
	stale bool
	// dropped tracks are forgotten at the end of the frame (a split card
	// has left its place).
	dropped bool
	// Where the card was put: seat (0 dealer, -1 none), hand index.
	seat int
	hand int
}

// New returns a tracker for a table.
func New(cfg Config, table *calibration.Table, rules game.Rules) *Tracker {
	return &Tracker{cfg: cfg, table: table, rules: rules, controlled: cfg.Controlled, emptySince: -1}
}

// StartRound opens round id, as the controller's game_start says. A round
// still open is closed first, unless its cards are this round's: cards
// dealt just before the dealer pressed start (within 4 s of the first),
// or, before the controller was first heard, a round of the tracker's own
// whose cards were all seen dealt on a felt seen cleared (its game_start
// came late; with a doubt past those 4 s). A round of its own whose
// cards lay on the felt when the tracker began watching (a restart: the
// last round's leftovers) is closed.
func (t *Tracker) StartRound(id string, frame int) []Round {
	t.controlled = true
	var out []Round
	if t.round != nil {
		soon := frame-t.round.start < t.cfg.LostFrames*4
		if (t.round.id == "" || t.round.dealtSeen) && len(t.round.order) > 0 && soon {
			// Cards dealt just before the dealer pressed start belong
			// to this round.
			t.round.id, t.round.dealtSeen = id, false
			return nil
		}
		if t.round.dealtSeen && len(t.round.order) > 0 {
			t.round.id, t.round.dealtSeen = id, false
			t.round.doubts = append(t.round.doubts, "its game_start came late, well after its first cards were dealt, before the monitor had heard from the controller: the cards dealt since the table was last cleared are taken as this round's")
			return nil
		}
		why := "a new game_start arrived before game_end"
		if t.round.untilCleared {
			why = "" // its game_end came, early, and it is over now
		}
		out = append(out, t.close(frame, why))
	}
	t.round = newRound(id, frame)
	return out
}

// EndRound closes the open round, as the controller's game_end says.
func (t *Tracker) EndRound(frame int) (Round, bool) {
	t.controlled = true
	if t.round == nil {
		return Round{}, false
	}
	return t.close(frame, ""), true
}

// Claim names the open round id, as the controller does, with a doubt
// (unless doubt is empty) that makes its alerts review: for a round the
// tracker opened itself from the cards in view, or that another
// game_start named. It reports whether a round is open.
func (t *Tracker) Claim(id, doubt string) bool {
	t.controlled = true
	if t.round == nil {
		return false
	}
	t.round.id = id
	if doubt != "" {
		t.round.doubts = append(t.round.doubts, doubt)
	}
	return true
}

// EndWhenCleared makes the open round end when the table is cleared, as
// it does without a controller, rather than at the controller's game_end:
// for a game_end that came while the round was plainly still being dealt.
// It reports whether a round is open.
func (t *Tracker) EndWhenCleared() bool {
	if t.round == nil {
		return false
	}
	t.round.untilCleared = true
	return true
}

// EndWhenSeenCleared is EndWhenCleared for a round whose cards the
// tracker may never see: a monitor restarted after the round's early
// game_end may come back to a table cleared while it was down. A felt
// that lies empty for ClearFrames ends the round then, even before any
// of its cards was counted; cards seen first make it end as
// EndWhenCleared says. It reports whether a round is open.
func (t *Tracker) EndWhenSeenCleared() bool {
	if !t.EndWhenCleared() {
		return false
	}
	t.round.emptyEnds = true
	return true
}

// EndAtGameEnd undoes EndWhenCleared: the open round ends at the
// controller's game_end again, as a game_start that made it end when
// cleared turned out to start a round never dealt.
func (t *Tracker) EndAtGameEnd() {
	if t.round != nil {
		t.round.untilCleared = false
	}
}

// Flush closes the open round, if it holds any card, at the end of the
// video.
func (t *Tracker) Flush() []Round {
	if t.round == nil || len(t.round.order) == 0 {
		t.round = nil
		return nil
	}
	return []Round{t.close(t.frame, "the video ended before the round did")}
}

// Observe takes one frame's observations and returns any round a cleared
// table finished.
func (t *Tracker) Observe(f vision.Frame) []Round {
	// A frame read after a gap stands for the frames skipped, up to half
	// of StableFrames: a card still needs two sightings to count.
	t.span = min(max(f.Index-t.frame, 1), max(1, (t.cfg.StableFrames+1)/2))
	if f.Index < t.frame || f.Index-t.frame > t.cfg.LostFrames {
		t.feltCleared = false // the felt was not watched meanwhile
	}
	t.frame = f.Index
	var out []Round
	if len(f.Cards) > 0 && t.swept(f.Index) {
		// Cards after the round's own were all swept: the next round's.
		out = append(out, t.close(f.Index, ""))
	}
	t.match(f)
	var due []*track
	for _, tr := range t.tracks {
		if !tr.confirmed && !tr.stale && f.Index-tr.stillSince+t.span >= t.cfg.StableFrames && tr.seen >= t.cfg.StableFrames && tr.lastSeen == f.Index && t.readable(tr) {
			due = append(due, tr)
		}
		if tr.confirmed && !tr.gone && f.Index-tr.lastSeen > t.cfg.LostFrames {
			tr.gone = true
		}
	}
	var faint []*track
	for _, tr := range t.dealingOrder(due) {
		if t.faintOnly(tr) {
			faint = append(faint, tr)
			continue
		}
		if o := t.countedNear(tr); o != nil {
			// A second sighting of a card already counted, read
			// another way: it is the same card.
			o.disputeBy(tr)
			tr.stale = true
			continue
		}
		if t.acrossDealerRow(tr) {
			continue
		}
		t.confirm(tr, f.Index)
	}
	for _, tr := range faint {
		if t.countedWithin(tr, faintClearMM) || t.acrossDealerRow(tr) {
			continue
		}
		t.confirm(tr, f.Index)
	}
	// Forget unconfirmed glimpses (a card in the dealer's moving hand)
	// and swept stale cards.
	t.tracks = slices.DeleteFunc(t.tracks, func(tr *track) bool {
		lost := f.Index-tr.lastSeen > t.cfg.LostFrames
		return tr.dropped || lost && (!tr.confirmed || tr.stale)
	})
	if len(f.Cards) > 0 {
		t.emptySince = -1
	} else if t.emptySince < 0 {
		t.emptySince = f.Index
	}
	if t.emptySince >= 0 && f.Index-t.emptySince >= t.cfg.ClearFrames {
		t.feltCleared = true
	}
	if t.round != nil && (!t.controlled || t.round.untilCleared) && t.emptySince >= 0 && f.Index-t.emptySince >= t.cfg.ClearFrames {
		switch {
		case len(t.round.order) > 0:
			out = append(out, t.close(f.Index, ""))
		case t.round.emptyEnds:
			out = append(out, t.close(f.Index, "none of its cards was seen: the table was cleared before the monitor watched it again"))
		}
	}
	return out
}

// swept reports whether the open round is one that ends when the table
// is cleared (EndWhenCleared) and none of its cards has been seen for
// LostFrames: cards seen now are the next round's, though the felt lay
// empty for less than ClearFrames.
func (t *Tracker) swept(frame int) bool {
	if t.round == nil || !t.round.untilCleared || len(t.round.order) == 0 {
		return false
	}
	for _, tr := range t.round.order {
		if frame-tr.lastSeen <= t.cfg.LostFrames {
			return false
		}
	}
	return true
}

// match continues tracks with the nearest observations.
func (t *Tracker) match(f vision.Frame) {
	type pair struct {
		o, t int
		d    float64
	}
	var pairs []pair
	for i, o := range f.Cards {
		for j, tr := range t.tracks {
			if tr.dropped || tr.gone && f.Index-tr.lastSeen > t.cfg.LostFrames*8 {
				continue
			}
			if d := vision.Dist(o.Center, tr.pos); d < t.cfg.MatchMM && !conflicts(tr, o) {
				pairs = append(pairs, pair{i, j, d})
			}
		}
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		switch {
		case a.d < b.d:
			return -1
		case a.d > b.d:
			return 1
		}
		return 0
	})
	usedO := make([]bool, len(f.Cards))
	// A doubtful reading of another card where a sure card lies is
	// dropped: it neither keeps that card alive nor starts another.
	for i, o := range f.Cards {
		if o.Confidence >= sureRead {
			continue
		}
		for _, tr := range t.tracks {
			if !tr.dropped && vision.Dist(o.Center, tr.pos) < t.cfg.MatchMM && conflicts(tr, o) {
				usedO[i] = true
				break
			}
		}
	}
	usedT := make([]bool, len(t.tracks))
	for _, p := range pairs {
		if usedO[p.o] || usedT[p.t] {
			continue
		}
		usedO[p.o], usedT[p.t] = true, true
		t.update(t.tracks[p.t], f.Cards[p.o], f.Index)
	}
	for i, o := range f.Cards {
		if usedO[i] {
			continue
		}
		tr := &track{id: t.nextID, pos: o.Center, stillPos: o.Center, stillSince: f.Index, firstSeen: f.Index, seat: -1, votes: map[cards.Card]*tally{}}
		t.nextID++
		t.update(tr, o, f.Index)
		t.tracks = append(t.tracks, tr)
	}
}

// dealingOrder sorts the cards due to be counted in one frame as they were
// dealt: the first seen first, and among cards that came into sight in
// the same frame (the dealer's hand over them until then), the one
// nearest a card already counted first, as a hand or the dealer's row
// grows away from its first card (the turned hole card and the dealer's
// next card may both come into sight once the dealer's hand has gone).
func (t *Tracker) dealingOrder(due []*track) []*track {
	if len(due) < 2 {
		return due
	}
	near := make(map[*track]float64, len(due))
	for _, tr := range due {
		near[tr] = math.Inf(1)
		for _, o := range t.tracks {
			if o.confirmed && !o.dropped && !o.stale {
				near[tr] = min(near[tr], vision.Dist(o.pos, tr.pos))
			}
		}
	}
	slices.SortStableFunc(due, func(a, b *track) int {
		if c := cmp.Compare(a.firstSeen, b.firstSeen); c != 0 {
			return c
		}
		return cmp.Compare(near[a], near[b])
	})
	return due
}

// conflicts reports whether the observation reads another card than the
// one the track is sure of: a card dealt where another just left (the
// place a split card came from). Even a doubtful reading of another card
// does not continue a sure track, or a card arriving under the dealer's
// hand would keep alive the one that left.
func conflicts(tr *track, o vision.Observation) bool {
	if !o.Card.Valid() || tr.reads == 0 {
		return false // a track known only from hints is never sure
	}
	id, conf := tr.identity()
	return conf >= sureRead && id != o.Card
}

// askew reports whether o is a doubtful reading of the counted card tr
// lying more than askewDeg off its angle: its index read in a wrong
// frame as the dealer's hand passes over it, the centre placed off by as
// much as the frame is. It does not move the card: moved there, the card
// would lie where the next card is being laid, and take that card's
// readings for its own.
func askew(tr *track, o vision.Observation) bool {
	if !tr.confirmed || !o.Card.Valid() || o.Confidence >= sureRead {
		return false
	}
	return angleApart(o.Angle, tr.angle) > askewDeg
}

// askewDeg: the angle readings of one card lying still agree within a
// few degrees; a corner read in the hand's frame rather than its own is
// off by the angle between them, 10° and more where the dealer lays a
// card askew.
const askewDeg = 10.0

// sureRead is the confidence of a reading the tracker acts on alone.
const sureRead = 0.75

func (t *Tracker) update(tr *track, o vision.Observation, frame int) {
	switch {
	case askew(tr, o):
		// Its place and angle stand.
	case vision.Dist(o.Center, tr.stillPos) > t.cfg.StillMM:
		tr.stillPos, tr.stillSince, tr.pos = o.Center, frame, o.Center
		tr.angle = o.Angle
	default:
		// Average out the jitter of a card lying still.
		tr.pos.X += (o.Center.X - tr.pos.X) / 4
		tr.pos.Y += (o.Center.Y - tr.pos.Y) / 4
		tr.angle = o.Angle
	}
	// Lying sideways is judged against the cards around, which are not
	// all seen in every frame: go by most sightings.
	if o.Sideways {
		tr.sideVotes++
	} else {
		tr.sideVotes--
	}
	tr.sideways = tr.sideVotes > 0
	tr.clipped = tr.clipped || o.Clipped
	tr.lastSeen = frame
	tr.seen += t.span
	if tr.gone {
		tr.gone = false // it was only covered
	}
	tr.faceUp = !o.FaceDown
	if o.Pips.Valid() && !o.FaceDown {
		if tr.pips == nil {
			tr.pips = map[cards.Card]int{}
		}
		tr.pips[o.Pips]++
	}
	switch {
	case o.FaceDown:
		tr.downs += t.span
	case o.Card.RankOnly():
		// The card's pips counted, its index unread: a blank that
		// names the rank, which stands while no reading names the card.
		if tr.ranks == nil {
			tr.ranks = map[cards.Card]*tally{}
		}
		count(tr.ranks, o, t.span)
		tr.rankReads += t.span
		tr.blanks += t.span
	case !o.Card.Valid():
		tr.blanks += t.span
	case o.Confidence < vision.Unreadable:
		tr.faints += t.span
	case o.Confidence >= clearRead:
		count(tr.votes, o, t.span)
		tr.reads += t.span
		tr.addRivals(o.Rivals)
	case o.Card.Valid():
		// A doubtful reading (a card half under the dealer's hand)
		// counts only while there is no clear one.
		if tr.weak == nil {
			tr.weak = map[cards.Card]*tally{}
		}
		count(tr.weak, o, t.span)
		tr.weakReads += t.span
	}
}

// clearRead is the confidence below which a reading is only a hint.
const clearRead = 0.5

// readable reports whether a track is a card worth counting: face down,
// or read with enough confidence.
func (t *Tracker) readable(tr *track) bool {
	if tr.downs > tr.reads+tr.weakReads {
		return true
	}
	_, conf := tr.identity()
	if conf >= t.cfg.CountConfidence {
		return true
	}
	// A card vision sees by its outline but cannot read (a deck
	// unlike those the model knows) lies there all the same: count it,
	// unread, so that its hand keeps it in its place and the hand's
	// alerts go for review. A later clear reading names it.
	if tr.blanks >= t.cfg.StableFrames {
		return true
	}
	// A card read only below vision.Unreadable (an index the model was
	// never shown, a card in a fan showing one corner) is such a card
	// too, where it lies clear of the cards counted (Observe checks
	// that once the frame's other cards are counted).
	if t.faintOnly(tr) {
		return true
	}
	// A card the model reads only doubtfully, but the same way every time
	// for a while, is there: count it, with its low confidence, so that
	// the round has all its cards and any alert on it goes for review.
	if tr.reads == 0 && tr.weakReads >= 3*t.cfg.StableFrames {
		best, total := 0.0, 0.0
		for _, v := range tr.weak {
			best, total = max(best, v.sum), total+v.sum
		}
		return conf >= weakFloor && best >= 0.8*total
	}
	return false
}

// countedNear returns the counted card that already lies where tr is, or
// nil: a second, doubtful reading of it is not another card. A card is
// laid over the counted one (laidOver) where that is the hand's next card.
func (t *Tracker) countedNear(tr *track) *track {
	for _, o := range t.tracks {
		if o != tr && o.confirmed && !o.dropped && !o.stale && vision.Dist(o.pos, tr.pos) < t.cfg.MatchMM && !laidOver(tr, o) {
			return o
		}
	}
	return nil
}

// disputeBy puts the counted card tr in doubt where other, a second
// sighting of it, reads another card surely at its far corner: half a
// turn from tr's own readings (farCornerDeg). Its two index corners then
// disagree, as vision finds where it sees both at once (a deck that
// prints its second index upright reads a 6♦ as a 9♦ from the card's far
// end, and the index alone cannot tell which way up the card lies): the
// card is reported with vision.DisputedConfidence, and other's card is
// its rival.
func (tr *track) disputeBy(other *track) {
	if other.reads == 0 || tr.reads == 0 {
		return
	}
	id, _ := tr.identity()
	oid, conf := other.identity()
	if oid != id && conf >= sureRead && turnApart(tr.angle, other.angle) > farCornerDeg {
		tr.addRivals([]cards.Card{oid})
		tr.disputed = true
	}
}

// farCornerDeg: readings of a card's two index corners lie half a turn
// apart; readings of one corner agree within a few degrees, and a corner
// read in a neighbour's frame lies off by the angle between the cards.
const farCornerDeg = 150

// faintOnly reports whether tr is a card only by its readings below
// vision.Unreadable: never read at or above it, never seen face down, and
// seen long enough only with those and blanks.
func (t *Tracker) faintOnly(tr *track) bool {
	return tr.reads+tr.weakReads+tr.downs == 0 && tr.blanks < t.cfg.StableFrames && tr.blanks+tr.faints >= t.cfg.StableFrames
}

// faintClearMM is how far from every counted card a card read only below
// vision.Unreadable must lie to count. Such a reading near a card counted
// is that card seen again, placed some 13 mm off its centre; the next
// card of a hand lies some 22 mm on.
const faintClearMM = 18

// countedWithin reports whether a counted card lies within mm of tr.
func (t *Tracker) countedWithin(tr *track, mm float64) bool {
	for _, o := range t.tracks {
		if o != tr && o.confirmed && !o.dropped && vision.Dist(o.pos, tr.pos) < mm {
			return true
		}
	}
	return false
}

// laidOver reports whether tr, a card coming to count near the counted
// card o, is another card laid over it: read surely as another card, no
// corner of either ever read as the other, their centres as far apart as
// two cards' (vision.SameCardMM), and either o not seen since tr came
// into sight (tr hides it) or o still in sight with both read the same
// way up. Each reading of a hand's cards may lie some 5 mm off towards
// the other (a card read in the frame of its far corner), so that the
// next card's centre comes within MatchMM of the one it covers. A second
// reading of a card in sight, that far from the first, comes from its
// far corner: half a turn from the first.
func laidOver(tr, o *track) bool {
	id, conf := tr.identity()
	oid, _ := o.identity()
	return tr.reads > 0 && conf >= sureRead && id != oid &&
		!slices.Contains(o.rivals, id) && !slices.Contains(tr.rivals, oid) &&
		vision.Dist(o.pos, tr.pos) >= vision.SameCardMM &&
		(o.lastSeen < tr.firstSeen || turnApart(o.angle, tr.angle) < 90)
}

// turnApart is how many degrees apart two readings' upright directions
// lie, at angles a and b in degrees: 0 to 180.
func turnApart(a, b float64) float64 {
	d := math.Mod(math.Abs(a-b), 360)
	return math.Min(d, 360-d)
}

// acrossDealerRow reports whether a card read face up in the dealer's
// zone lies across the dealer's row: sideways among the cards around it,
// or turned a quarter from most of the dealer's cards counted so far. The
// dealer never doubles, so no dealer card lies sideways; such a reading is
// the model seeing an index, the wrong way round, at a corner that has
// none (where two cards of the row overlap, the paper under such a card
// would be there). It is not counted.
func (t *Tracker) acrossDealerRow(tr *track) bool {
	if tr.downs > tr.reads+tr.weakReads {
		return false // a back tells its long edge less surely than a face
	}
	if _, dealer := t.table.ZoneAt(tr.pos); !dealer {
		return false
	}
	if tr.sideways {
		return true
	}
	if t.round == nil {
		return false
	}
	across, along := 0, 0
	for _, d := range t.round.dealer {
		if quarterTurned(d.angle, tr.angle) {
			across++
		} else {
			along++
		}
	}
	return across > along
}

// quarterTurned reports whether two cards' long edges, at angles a and b in
// degrees, are more than 45° apart, either way round.
func quarterTurned(a, b float64) bool {
	return angleApart(a, b) > 45
}

// angleApart is how many degrees apart two cards' long edges lie, at
// angles a and b in degrees, either way round: 0 to 90.
func angleApart(a, b float64) float64 {
	d := turnApart(a, b)
	return math.Min(d, 180-d)
}

// weakFloor is the least mean confidence of a doubtful but steady
// reading that still counts a card. Below it, what the model sees is as
// likely a chip or the printing on the felt.
const weakFloor = vision.Unreadable

// identity returns the card most reads agreed on and how sure they are:
// the confidence the card was read with at least twice (once, for a card
// read once), times the share of the reads that named it. A card read
// surely and later less so (the next card dealt over its index, a hand
// passing) is as sure as its clear reads were; reads of other cards, and
// only they, make it less so. A card never read, clearly or doubtfully,
// is the rank its pips counted, if they were (a card known by its rank
// alone).
func (tr *track) identity() (cards.Card, float64) {
	votes, n := tr.votes, tr.reads
	if n == 0 {
		votes, n = tr.weak, tr.weakReads
	}
	if n == 0 {
		votes, n = tr.ranks, tr.rankReads
	}
	var best cards.Card
	var bestV *tally
	for c, v := range votes {
		if bestV == nil || v.sum > bestV.sum || (v.sum == bestV.sum && c.String() < best.String()) {
			best, bestV = c, v
		}
	}
	if bestV == nil {
		return cards.Card{}, 0 // never read
	}
	return best, bestV.peak() * float64(bestV.frames) / float64(n)
}

// addRivals adds cs to the track's rivals, each once.
func (tr *track) addRivals(cs []cards.Card) {
	for _, c := range cs {
		if !slices.Contains(tr.rivals, c) {
			tr.rivals = append(tr.rivals, c)
		}
	}
}

// candidates returns the cards a track taken for card id may be, where
// its reading is in dispute (its corners were read as other cards too,
// its rivals, or its pips as another suit than its index: other): id,
// the other cards it was clearly read as, its rivals and other, in the
// deck's order. Nil where no reading was disputed: a card read
// doubtfully may be any card.
func (tr *track) candidates(id cards.Card, other ...cards.Card) []cards.Card {
	if len(tr.rivals) == 0 && len(other) == 0 || !id.Valid() {
		return nil
	}
	out := append([]cards.Card{id}, tr.rivals...)
	out = append(out, other...)
	for c := range tr.votes {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b cards.Card) int {
		return cmp.Or(cmp.Compare(a.Suit, b.Suit), cmp.Compare(a.Rank, b.Rank))
	})
	return slices.Compact(out)
}

// pipSuit returns the suit the card's pips name, where they name one
// other than id's, of its colour: most of the sightings whose pips were
// read surely as a suit and counted id's rank said so. Otherwise 0. A
// number card's pips are drawn large, where its index's pip is a few
// pixels across on camera: a club and a spade, or a heart and a diamond,
// are told apart surely by the pips where the index's may be taken for
// the other suit of the colour. For a card known by its rank alone
// (cards.Card.RankOnly: its index never read, so no colour to keep to),
// the sightings' pips name its suit over all four
// (vision.Observation.Pips), and most of them must agree.
func (tr *track) pipSuit(id cards.Card) cards.Suit {
	if !id.Valid() && !id.RankOnly() {
		return 0
	}
	votes := map[cards.Suit]int{}
	n := 0
	for c, k := range tr.pips {
		if c.Rank == id.Rank && (id.RankOnly() || c.Suit.Red() == id.Suit.Red()) {
			votes[c.Suit] += k
			n += k
		}
	}
	for s, k := range votes {
		if s != id.Suit && 2*k > n {
			return s
		}
	}
	return 0
}

// tally is what a track's readings say of one card.
type tally struct {
	sum    float64    // confidence times video frames
	frames int        // video frames read as the card
	sights int        // frames read as the card
	top    [2]float64 // the two highest confidences it was read with
}

// count adds the reading o, standing for span video frames, to votes.
func count(votes map[cards.Card]*tally, o vision.Observation, span int) {
	v := votes[o.Card]
	if v == nil {
		v = &tally{}
		votes[o.Card] = v
	}
	v.sum += o.Confidence * float64(span)
	v.frames += span
	v.sights++
	v.top = top2(v.top, o.Confidence)
}

// merge adds the tallies of from to those of into.
func merge(into, from map[cards.Card]*tally) {
	for c, f := range from {
		v := into[c]
		if v == nil {
			v = &tally{}
			into[c] = v
		}
		v.sum += f.sum
		v.frames += f.frames
		v.sights += f.sights
		v.top = top2(top2(v.top, f.top[0]), f.top[1])
	}
}

// top2 returns the two highest of t and x, highest first.
func top2(t [2]float64, x float64) [2]float64 {
	switch {
	case x > t[0]:
		return [2]float64{x, t[0]}
	case x > t[1]:
		return [2]float64{t[0], x}
	}
	return t
}

// peak is the confidence the card was read with at least twice: a single
// sure frame of a card moving into place may be the blur of another.
func (v *tally) peak() float64 {
	if v.sights < 2 {
		return v.top[0]
	}
	return v.top[1]
}

// confirm counts the card and puts it at a seat and hand.
func (t *Tracker) confirm(tr *track, frame int) {
	tr.confirmed, tr.confirmAt = true, frame
	if t.round == nil {
		if t.controlled {
			// Cards before game_start: hold them in a round that the
			// coming game_start names.
			t.round = newRound("", frame)
		} else {
			t.autoRounds++
			t.round = newRound("auto-"+strconv.Itoa(t.autoRounds), frame)
			t.round.dealtSeen = t.feltCleared
		}
	}
	r := t.round
	seat, dealer := t.table.ZoneAt(tr.pos)
	if dealer {
		tr.seat = 0
		r.dealer = append(r.dealer, tr)
		r.order = append(r.order, tr)
		return
	}
	if t.placePlayer(r, tr, seat) && r.skipOrder != tr {
		r.order = append(r.order, tr)
	}
}

// placePlayer puts a player card in a hand and reports whether it found
// one. A split card starts a new hand of the seat it came from; any other
// card joins the hand, at any seat, whose last card lies next to it (split
// hands may reach into a neighbour's zone); a card near no hand starts the
// first hand of the seat whose zone it lies in. A card up to 2.5 hands'
// reach from the nearest hand joins it in doubt; one further off, in a
// seat's zone that has hands, joins none, and the round stands in doubt.
func (t *Tracker) placePlayer(r *roundState, tr *track, zone int) bool {
	if s, parent, moved := t.splitSource(r, tr); moved != nil {
		// The pair's second card moved to a place of its own: it leaves
		// its hand (keeping its place in the dealing order) and starts
		// a split hand.
		ph := s.hands[parent]
		ph.cards = slices.DeleteFunc(ph.cards, func(x *track) bool { return x == moved })
		// The card has left its old place: forget the track there, or
		// the next card dealt to that place would continue it.
		moved.dropped = true
		r.replace(moved, tr)
		tr.confirmAt, tr.firstSeen = moved.confirmAt, moved.firstSeen
		merge(tr.votes, moved.votes)
		tr.reads += moved.reads
		if tr.weak == nil && len(moved.weak) > 0 {
			tr.weak = map[cards.Card]*tally{}
		}
		merge(tr.weak, moved.weak)
		tr.weakReads += moved.weakReads
		if tr.ranks == nil && len(moved.ranks) > 0 {
			tr.ranks = map[cards.Card]*tally{}
		}
		merge(tr.ranks, moved.ranks)
		tr.rankReads += moved.rankReads
		for c, k := range moved.pips {
			if tr.pips == nil {
				tr.pips = map[cards.Card]int{}
			}
			tr.pips[c] += k
		}
		tr.addRivals(moved.rivals)
		tr.disputed = tr.disputed || moved.disputed
		tr.seat, tr.hand = s.n, len(s.hands)
		s.hands = append(s.hands, &hand{from: parent, cards: []*track{tr}})
		r.skipOrder = tr
		return true
	}
	var best *seatState
	bestHand, bestD := -1, math.Inf(1)
	for _, s := range r.seats {
		for i, h := range s.hands {
			last := h.cards[len(h.cards)-1]
			if d := vision.Dist(last.pos, tr.pos); d < bestD {
				best, bestHand, bestD = s, i, d
			}
		}
	}
	switch {
	case bestD <= t.cfg.HandMM:
	case zone > 0 && len(r.seat(zone).hands) == 0:
		s := r.seat(zone)
		tr.seat, tr.hand = zone, 0
		s.hands = append(s.hands, &hand{from: -1, cards: []*track{tr}})
		return true
	case best != nil && bestD <= 2.5*t.cfg.HandMM:
		r.doubts = append(r.doubts, fmt.Sprintf("seat %d: a card lay %.0f mm from its hand", best.n, bestD))
	case zone > 0:
		r.doubts = append(r.doubts, fmt.Sprintf("seat %d: a card lay %.0f mm from every hand, in none", zone, bestD))
		tr.seat = -1
		return false
	default:
		tr.seat = -1 // outside every hand and zone: the shoe, the discard rack
		return false
	}
	tr.seat, tr.hand = best.n, bestHand
	h := best.hands[bestHand]
	h.cards = append(h.cards, tr)
	slices.SortStableFunc(h.cards, func(a, b *track) int { return a.firstSeen - b.firstSeen })
	return true
}

// splitSource finds the card a split moved: a counted card, the second
// of a two-card hand, not seen for a moment (left), whose reads match the
// new card's, lying a hand's width or two away. It returns the seat and hand
// it came from and its track. A split card lies along its new hand and
// makes a pair with the card it leaves: a sideways card is a double, and
// a card that makes no pair is another card of the same rank and suit
// (several decks), such as a neighbour's double seen only once the cards
// under it were swept.
func (t *Tracker) splitSource(r *roundState, tr *track) (*seatState, int, *track) {
	if tr.sideways {
		return nil, -1, nil
	}
	id, _ := tr.identity()
	for _, s := range r.seats {
		for i, h := range s.hands {
			if len(h.cards) < 2 {
				continue
			}
			// The pair's second card moves. While the hand has only its
			// pair, the two may have been counted in either order; once
			// the next card has come (it can be counted before the moved
			// card is, at its new place), it is the second.
			cands := h.cards[1:2]
			if len(h.cards) == 2 {
				cands = h.cards
			}
			for _, cand := range cands {
				d := vision.Dist(cand.pos, tr.pos)
				if d < t.cfg.MatchMM*2 || d > 6*t.cfg.HandMM || tr.confirmAt-cand.lastSeen > t.cfg.SplitFrames+(tr.confirmAt-tr.firstSeen) || !t.left(cand, tr) {
					continue
				}
				other := h.cards[0]
				if cand == other {
					other = h.cards[1]
				}
				cid, _ := cand.identity()
				oid, _ := other.identity()
				pair := cards.IsPair([]cards.Card{cid, oid})
				if id.Valid() && cid == id && (pair || !oid.Valid()) || !id.Valid() && pair {
					return s, i, cand
				}
			}
		}
	}
	return nil, -1, nil
}

// left reports whether the counted card cand left its place as tr, a
// card of the same face, came into sight elsewhere: cand is not seen as
// tr is counted, and was seen no later than StableFrames after tr came.
// The vision keeps the cards under the dealer's moving hand until the
// zone settles (vision.Options.SettleFrames), so a card the hand moves
// is seen at its old place for a moment after it shows at its new one.
// Two cards of one face in sight together for longer are two cards.
func (t *Tracker) left(cand, tr *track) bool {
	return cand.lastSeen < tr.confirmAt && cand.lastSeen-tr.firstSeen < t.cfg.StableFrames
}
