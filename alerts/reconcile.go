package alerts

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"bjmonitor/cards"
	"bjmonitor/controller"
	"bjmonitor/evaluator"
	"bjmonitor/game"
	"bjmonitor/tracker"
)

// The kinds of alert.
const (
	Overpaid         = "overpaid"
	Underpaid        = "underpaid"
	MissedPayout     = "missed_payout"
	PaidWithoutWager = "paid_without_wager"
	WrongAward       = "wrong_award"
	MeterMismatch    = "meter_mismatch"
	OverLimit        = "over_limit"
	// Unjudged: a wager the monitor could not judge, because the cards it
	// depends on were not all seen. Always severity review.
	Unjudged = "unjudged"
	// Procedure: an entry that breaks the dealer's procedure (a second
	// payout for one seat and bet, a game_end while the round is still
	// being dealt, a game_start inside an open round). It is never summed
	// or obeyed blindly, and is always severity review.
	Procedure = "procedure"
)

// Severities.
const (
	Mismatch = "mismatch"
	Review   = "review"
)

// Alert is one difference between the monitor and the dealer's entries.
type Alert struct {
	ID       string  `json:"id"`
	Table    string  `json:"table"`
	Round    string  `json:"round"`
	Seat     int     `json:"seat,omitempty"`
	Bet      string  `json:"bet"`
	Kind     string  `json:"kind"`
	Severity string  `json:"severity"`
	Expected float64 `json:"expected"`
	Entered  float64 `json:"entered"`
	// ExpectedAward and EnteredAward are "10%" or "100%" for a
	// progressive award.
	ExpectedAward string `json:"expected_award,omitempty"`
	EnteredAward  string `json:"entered_award,omitempty"`
	// Result is the evaluator's verdict on the cards ("three_sevens").
	Result string     `json:"result,omitempty"`
	Cards  []CardRead `json:"cards"`
	// Detail says it in a sentence for the officer.
	Detail string `json:"detail"`
	// Time is the video time of the round's end, in seconds; Frame the
	// frame.
	Time  float64 `json:"video_time"`
	Frame int     `json:"frame"`
	// Snapshot and Clip are the evidence files, when written.
	Snapshot string `json:"snapshot,omitempty"`
	Clip     string `json:"clip,omitempty"`
	// Rule names the procedure a Procedure alert says was broken
	// (ExtraPayout, EarlyGameEnd, StartInOpenRound, EndNotDealt).
	Rule string `json:"rule,omitempty"`
}

// TurnsOnDealer reports whether an alert of kind on bet rests on a
// judgement that can turn on the dealer's cards: one judged on a wager's
// cards (overpaid, underpaid, missed_payout, wrong_award, unjudged) whose
// bet does (evaluator.TurnsOnDealer). A doubt about the dealer's cards
// alone (tracker.Round.DealerDoubts) bears on such an alert only; an
// entry judged on no cards (a wager over the limits, a payout with no
// wager, the meter's reading, a procedure) turns on none.
func TurnsOnDealer(kind, bet string) bool {
	switch kind {
	case Overpaid, Underpaid, MissedPayout, WrongAward, Unjudged:
		return evaluator.TurnsOnDealer(evaluator.Bet(bet))
	}
	return false
}

// The procedures a Procedure alert names.
const (
	ExtraPayout      = "extra_payout"
	EarlyGameEnd     = "early_game_end"
	StartInOpenRound = "game_start_in_open_round"
	EndNotDealt      = "game_end_not_dealt"
)

// MarshalJSON writes the alert record; an alert resting on no cards lists
// them as [], never null.
func (a Alert) MarshalJSON() ([]byte, error) {
	type plain Alert // no methods, so no recursion
	if a.Cards == nil {
		a.Cards = []CardRead{}
	}
	return json.Marshal(plain(a))
}

// CardRead is a card an alert is based on, and how sure its reading is;
// where its corners were read as two cards, the cards it may be.
type CardRead struct {
	Card       string       `json:"card"`
	Confidence float64      `json:"confidence"`
	Candidates []cards.Card `json:"candidates,omitempty"`
}

// Limit bounds a bet's wager.
type Limit struct{ Min, Max float64 }

// Config is what reconciliation needs to know of the table.
type Config struct {
	Table  string
	Rules  game.Rules
	Tables evaluator.PayTables
	// Limits per bet; a bet without one is not checked.
	Limits map[evaluator.Bet]Limit
	// MinConfidence: an alert on cards read with less is for review.
	MinConfidence float64
	// FPS turns frames into video time.
	FPS float64
}

// Reconciler judges rounds one after another. It keeps the Blazing 7's
// meter, so it must see every round, in order. Not safe for concurrent
// use.
type Reconciler struct {
	cfg   Config
	meter *evaluator.Meter
}

// NewReconciler returns a reconciler that advances meter.
func NewReconciler(cfg Config, meter *evaluator.Meter) *Reconciler {
	if cfg.MinConfidence == 0 {
		cfg.MinConfidence = 0.75
	}
	if cfg.FPS == 0 {
		cfg.FPS = 25
	}
	return &Reconciler{cfg: cfg, meter: meter}
}

// Meter is the monitor's own progressive meter.
func (rc *Reconciler) Meter() *evaluator.Meter { return rc.meter }

// tolerance is how far apart two amounts of money may be and still agree:
// half a cent.
const tolerance = 0.005

// Round judges every wager the controller entered for a round against the
// cards the tracker rebuilt, and returns the outcomes and the alerts.
// entries are the controller's events for this round, in order.
func (rc *Reconciler) Round(r tracker.Round, entries []controller.Event) ([]evaluator.Outcome, []Alert) {
	g := r.Round
	e := sortEntries(entries)
	wagers, paid, paidOrder, awards, meterReading := e.wagers, e.paid, e.paidOrder, e.awards, e.meter
	var out []Alert
	// An alert is for review where a doubt of the round bears on its
	// seat; one of no seat (the meter's) takes every doubt. A doubt about
	// the dealer's cards alone bears only on what turns on them
	// (TurnsOnDealer).
	raise := func(a Alert, lowConf bool) {
		rc.stamp(&a, r.ID, r.EndFrame, lowConf || len(r.DoubtsOn(a.Seat, TurnsOnDealer(a.Kind, a.Bet))) > 0)
		out = append(out, a)
	}

	for _, w := range wagers {
		if w.Bet == evaluator.Blazing7s {
			rc.meter.Wager()
		}
	}
	var outcomes []evaluator.Outcome
	wagered := map[key]bool{}
	for _, w := range wagers {
		k := key{w.Seat, string(w.Bet)}
		wagered[k] = true
		if lim, ok := rc.cfg.Limits[w.Bet]; ok && (w.Amount < lim.Min-tolerance || w.Amount > lim.Max+tolerance) {
			raise(Alert{Seat: w.Seat, Bet: string(w.Bet), Kind: OverLimit, Expected: lim.Max, Entered: w.Amount,
				Detail: fmt.Sprintf("seat %d wagered $%.2f on %s; the limits are $%.2f to $%.2f", w.Seat, w.Amount, w.Bet, lim.Min, lim.Max)}, false)
		}
		dealer := evaluator.TurnsOnDealer(w.Bet)
		o, err := evaluator.Evaluate(g, rc.cfg.Rules, w, rc.cfg.Tables, rc.meter.Value())
		if err != nil {
			raise(Alert{Seat: w.Seat, Bet: string(w.Bet), Kind: Unjudged, Entered: paid[k],
				Detail: fmt.Sprintf("seat %d %s: %v", w.Seat, w.Bet, err)}, true)
			continue
		}
		reads, low := rc.reads(r, o)
		// A doubt about which cards lie where (a card not counted, a
		// card that may be missing) is not settled by trying every card
		// in a doubtful one's place: an alert it bears on is for review.
		doubted := len(doubtsOn(r, o, dealer)) > 0
		raiseHere := func(a Alert, lowConf bool) { raise(a, lowConf || doubted) }
		if low && !doubted {
			if sure := rc.sure(r, w, o, paid[k], awards[w.Seat], raise); sure != nil {
				raiseHere, low = sure, false
			}
		}
		if o.MeterShare > 0 {
			rc.meter.Award(o.MeterShare)
		}
		outcomes = append(outcomes, o)
		base := Alert{Seat: w.Seat, Bet: string(w.Bet), Result: o.Result, Cards: reads}
		rc.compare(w, o, paid[k], awards[w.Seat], base, low, raiseHere)
		if w.Bet == evaluator.Blazing7s {
			delete(awards, w.Seat)
		}
	}
	// Where the monitor did not see the round start, a wager may have been
	// entered before it began watching: a payout with no wager is left
	// unjudged, saying so.
	noWager, unseen := PaidWithoutWager, ""
	if r.StartUnseen {
		noWager, unseen = Unjudged, " (the monitor did not see this round start: it may have been entered before)"
	}
	for _, k := range paidOrder {
		if !wagered[k] {
			raise(Alert{Seat: k.seat, Bet: k.bet, Kind: noWager, Entered: paid[k],
				Detail: fmt.Sprintf("$%.2f paid on %s at seat %d, where no %s wager was entered%s", paid[k], k.bet, k.seat, k.bet, unseen)}, false)
		}
	}
	for seat, es := range awards { // awards at seats with no Blazing 7's wager
		for _, e := range es {
			raise(Alert{Seat: seat, Bet: string(evaluator.Blazing7s), Kind: noWager, Entered: e.Amount, EnteredAward: e.Award,
				Detail: fmt.Sprintf("a %s progressive award of $%.2f at seat %d, which had no Blazing 7's wager%s", e.Award, e.Amount, seat, unseen)}, false)
		}
	}
	if meterReading != nil && math.Abs(meterReading.Amount-rc.meter.Value()) > tolerance {
		raise(Alert{Bet: string(evaluator.Blazing7s), Kind: MeterMismatch, Expected: rc.meter.Value(), Entered: meterReading.Amount,
			Detail: fmt.Sprintf("the controller's Blazing 7's meter reads $%.2f; by the wagers and awards seen it should be $%.2f", meterReading.Amount, rc.meter.Value())}, false)
		// Follow the controller from here, so one disagreement raises one
		// alert rather than one every round.
		rc.meter.Set(meterReading.Amount)
	}
	out = append(out, rc.extraPayouts(r, e)...)
	slices.SortStableFunc(out, func(a, b Alert) int { return a.Seat - b.Seat })
	return outcomes, out
}

// stamp fills in what every alert carries: the table, round and time, the
// severity (review where doubt is true, and always for Unjudged and
// Procedure) and the id, <table>:<round>:<seat>:<bet>:<kind>, to which a
// Procedure alert adds its rule and a number of its own.
func (rc *Reconciler) stamp(a *Alert, round string, frame int, doubt bool) {
	a.Table, a.Round = rc.cfg.Table, round
	a.Frame, a.Time = frame, float64(frame)/rc.cfg.FPS
	a.Severity = Mismatch
	if doubt || a.Kind == Unjudged || a.Kind == Procedure {
		a.Severity = Review
	}
	a.ID = fmt.Sprintf("%s:%s:%d:%s:%s", a.Table, a.Round, a.Seat, a.Bet, a.Kind)
	if a.Kind == Procedure {
		a.ID += ":" + a.Rule
	}
}

// ProcedureAlert returns a Procedure alert on round, raised at frame: an
// entry of the controller that breaks the dealer's procedure. n tells
// apart alerts of one rule on one round (1 for the first).
func (rc *Reconciler) ProcedureAlert(round string, frame int, rule string, n int, detail string) Alert {
	a := Alert{Bet: "", Kind: Procedure, Rule: rule, Detail: detail}
	rc.stamp(&a, round, frame, true)
	if n > 1 {
		a.ID += ":" + strconv.Itoa(n)
	}
	return a
}

// extraPayouts raises a Procedure alert for each payout or progressive
// award after the first for one seat and bet; the first is the one
// judged.
func (rc *Reconciler) extraPayouts(r tracker.Round, e entered) []Alert {
	var out []Alert
	n := map[key]int{}
	for _, ev := range e.extra {
		k := key{ev.Seat, ev.Bet}
		first := e.paid[k]
		if ev.Type == controller.ProgressiveAward {
			k.bet, first = string(evaluator.Blazing7s), e.firstAward[ev.Seat]
		}
		n[k]++
		a := Alert{Seat: ev.Seat, Bet: k.bet, Kind: Procedure, Rule: ExtraPayout, Entered: ev.Amount,
			Detail: fmt.Sprintf("seat %d %s: another payout of $%.2f after $%.2f; only the first is judged", ev.Seat, k.bet, ev.Amount, first)}
		rc.stamp(&a, r.ID, r.EndFrame, true)
		a.ID += ":" + strconv.Itoa(n[k]+1)
		out = append(out, a)
	}
	return out
}

// key is a seat and bet.
type key struct {
	seat int
	bet  string
}

// entered is what the controller entered for a round, by kind.
type entered struct {
	wagers []evaluator.Wager
	// paid is each seat and bet's first payout, in paidOrder; extra the
	// payouts and progressive awards after the first for one seat and bet.
	paid      map[key]float64
	paidOrder []key
	extra     []controller.Event
	awards    map[int][]controller.Event // the first award at each seat
	// firstAward is the amount of each seat's first award, as awards
	// is consumed while judging.
	firstAward map[int]float64
	meter      *controller.Event // the last Blazing 7's meter reading
}

// sortEntries sorts a round's entries by kind. A seat and bet is paid
// once: the first payout is the one judged, and any other is an alert of
// its own, never added to it.
func sortEntries(entries []controller.Event) entered {
	e := entered{paid: map[key]float64{}, awards: map[int][]controller.Event{}, firstAward: map[int]float64{}}
	for i, ev := range entries {
		switch ev.Type {
		case controller.Wager:
			e.wagers = append(e.wagers, evaluator.Wager{Seat: ev.Seat, Bet: evaluator.Bet(ev.Bet), Amount: ev.Amount})
		case controller.Payout:
			k := key{ev.Seat, ev.Bet}
			if _, ok := e.paid[k]; ok {
				e.extra = append(e.extra, ev)
				continue
			}
			e.paidOrder = append(e.paidOrder, k)
			e.paid[k] = ev.Amount
		case controller.ProgressiveAward:
			if len(e.awards[ev.Seat]) > 0 {
				e.extra = append(e.extra, ev)
				continue
			}
			e.awards[ev.Seat] = append(e.awards[ev.Seat], ev)
			e.firstAward[ev.Seat] = ev.Amount
		case controller.Meter:
			if ev.Bet == string(evaluator.Blazing7s) {
				e.meter = &entries[i]
			}
		}
	}
	return e
}

// fixed compares a fixed-odds outcome with the amount paid.
func (rc *Reconciler) fixed(o evaluator.Outcome, entered float64, a Alert, low bool, raise func(Alert, bool)) {
	a.Expected, a.Entered = o.Win, entered
	switch {
	case math.Abs(entered-o.Win) <= tolerance:
		return
	case o.Won() && entered == 0:
		a.Kind = MissedPayout
		a.Detail = fmt.Sprintf("seat %d %s: %s pays $%.2f, but nothing was paid", o.Seat, o.Bet, o.Result, o.Win)
	case entered > o.Win:
		a.Kind = Overpaid
		a.Detail = fmt.Sprintf("seat %d %s: paid $%.2f, but %s pays $%.2f", o.Seat, o.Bet, entered, o.Result, o.Win)
	default:
		a.Kind = Underpaid
		a.Detail = fmt.Sprintf("seat %d %s: paid $%.2f, but %s pays $%.2f", o.Seat, o.Bet, entered, o.Result, o.Win)
	}
	raise(a, low)
}

// blazing compares a Blazing 7's outcome with the payout and the
// progressive awards entered at its seat.
func (rc *Reconciler) blazing(o evaluator.Outcome, paid float64, awards []controller.Event, a Alert, low bool, raise func(Alert, bool)) {
	if o.Award == "" {
		if len(awards) > 0 {
			e := awards[0]
			a.Kind, a.Expected, a.Entered, a.EnteredAward = WrongAward, o.Win, e.Amount, e.Award
			a.Detail = fmt.Sprintf("seat %d Blazing 7's: a %s progressive award ($%.2f) was entered, but the hand is %s, which pays $%.2f", o.Seat, e.Award, e.Amount, o.Result, o.Win)
			raise(a, low)
			return
		}
		rc.fixed(o, paid, a, low, raise)
		return
	}
	a.ExpectedAward, a.Expected = o.Award, o.Win
	if len(awards) == 0 {
		a.Kind, a.Entered = MissedPayout, paid
		a.Detail = fmt.Sprintf("seat %d Blazing 7's: %s wins the %s award ($%.2f), but no award was entered", o.Seat, o.Result, o.Award, o.Win)
		raise(a, low)
		return
	}
	e := awards[0]
	a.EnteredAward, a.Entered = e.Award, e.Amount
	switch {
	case e.Award != o.Award:
		a.Kind = WrongAward
		a.Detail = fmt.Sprintf("seat %d Blazing 7's: the %s award was entered, but %s wins the %s award", o.Seat, e.Award, o.Result, o.Award)
	case e.Amount > o.Win+tolerance:
		a.Kind = Overpaid
		a.Detail = fmt.Sprintf("seat %d Blazing 7's: the %s award paid $%.2f; the meter gives $%.2f", o.Seat, o.Award, e.Amount, o.Win)
	case e.Amount < o.Win-tolerance:
		a.Kind = Underpaid
		a.Detail = fmt.Sprintf("seat %d Blazing 7's: the %s award paid $%.2f; the meter gives $%.2f", o.Seat, o.Award, e.Amount, o.Win)
	default:
		return
	}
	raise(a, low)
}

// compare raises the alerts that the entries for wager w (paid, and for
// Blazing 7's the progressive awards entered at its seat) make against
// outcome x of w, each from a.
func (rc *Reconciler) compare(w evaluator.Wager, x evaluator.Outcome, paid float64, awards []controller.Event, a Alert, low bool, raise func(Alert, bool)) {
	if w.Bet == evaluator.Blazing7s {
		rc.blazing(x, paid, awards, a, low, raise)
		return
	}
	rc.fixed(x, paid, a, low, raise)
}

// sure returns, for the alerts on outcome o of wager w, which rest on a
// card read below MinConfidence and on no doubt of the round, the raise
// that makes them sure where they stand whatever the doubtful cards are
// (settle), their detail saying so; nil where they do not, or where the
// entries are right.
func (rc *Reconciler) sure(r tracker.Round, w evaluator.Wager, o evaluator.Outcome, paid float64, awards []controller.Event, raise func(Alert, bool)) func(Alert, bool) {
	// The kinds of alert the entries raise against an outcome x of w:
	// none where they are right.
	kinds := func(x evaluator.Outcome) []string {
		var out []string
		rc.compare(w, x, paid, awards, Alert{}, false, func(a Alert, _ bool) { out = append(out, a.Kind) })
		return out
	}
	if len(kinds(o)) == 0 {
		return nil
	}
	below := "the cards read below " + strconv.FormatFloat(rc.cfg.MinConfidence, 'f', -1, 64)
	switch rc.settle(r, w, o, kinds) {
	case sameOutcome:
		// The doubt changes nothing the alert says.
		return func(a Alert, lowConf bool) {
			a.Detail += ", whatever " + below + " are"
			raise(a, lowConf)
		}
	case sameAlerts:
		// The doubt changes what the wager pays, but not that the entry
		// is wrong, nor which way.
		return func(a Alert, lowConf bool) {
			a.Detail += "; whatever " + below + " are, the entry is " + kindText[a.Kind] + " (what it pays turns on them)"
			raise(a, lowConf)
		}
	}
	return nil
}

// settlement is how far an outcome's alerts stand whatever the cards
// read below MinConfidence are (settle).
type settlement int

const (
	unsettled settlement = iota
	// sameAlerts: every card they could be leaves the entries wrong the
	// same way, the same kinds of alert, though what the wager pays
	// depends on them.
	sameAlerts
	// sameOutcome: every card they could be gives the same result,
	// payout and award.
	sameOutcome
)

// kindText says what an alert's kind says of the entry, in the words of
// an alert's detail.
var kindText = map[string]string{
	Overpaid:     "more than the wager pays",
	Underpaid:    "less than the wager pays",
	MissedPayout: "a payout missed",
	WrongAward:   "the wrong progressive award",
}

// settle reports how far outcome o of wager w stands whatever the cards
// read below MinConfidence that w turns on (evaluator.Places) are: w is
// judged again with each of them replaced by every card of the deck (a
// card whose corners were read as two cards, by each of its candidates),
// in every combination, up to maxJudgements judgements. Where every
// judgement gives o's result, payout and award, the outcome stands
// (sameOutcome); where each raises the same kinds of alert as o does
// (kinds), the entries are wrong the same way whichever card each
// doubtful one is (sameAlerts). Either way an alert on o need not wait
// for a person. A card never read is not tried: it is a gap, not a
// reading. A doubtful card known by its rank alone is tried as every
// card of the deck, as a doubtful reading is. Call it only for an
// outcome no doubt of the round bears on (doubtsOn), and before the
// meter takes o's award.
func (rc *Reconciler) settle(r tracker.Round, w evaluator.Wager, o evaluator.Outcome, kinds func(evaluator.Outcome) []string) settlement {
	deck := cards.Deck()
	// A card whose corners were read as two cards is one of them (its
	// candidates); any other doubtful card may be any card.
	choices := func(p game.Place) []cards.Card {
		if c, ok := r.Card(p); ok && len(c.Candidates) > 0 {
			return c.Candidates
		}
		return deck
	}
	turns := evaluator.Places(r.Round, w)
	var doubtful []game.Place
	judgements := 1
	for p, c := range r.Cards() {
		if !slices.Contains(turns, p) || c.Confidence >= rc.cfg.MinConfidence {
			continue
		}
		if !c.Card.Rank.Valid() {
			return unsettled
		}
		doubtful = append(doubtful, p)
		if judgements *= len(choices(p)); judgements > maxJudgements {
			return unsettled
		}
	}
	if len(doubtful) == 0 {
		return unsettled
	}
	meter := rc.meter.Value()
	want := kinds(o)
	outcome := true // every judgement so far gave o
	alerts := r.Round.ForAll(doubtful, choices, func(g game.Round) bool {
		x, err := evaluator.Evaluate(g, rc.cfg.Rules, w, rc.cfg.Tables, meter)
		if err != nil {
			return false
		}
		outcome = outcome && x.Result == o.Result && math.Abs(x.Win-o.Win) <= tolerance && x.Award == o.Award && x.MeterShare == o.MeterShare
		return outcome || slices.Equal(kinds(x), want)
	})
	switch {
	case !alerts:
		return unsettled
	case outcome:
		return sameOutcome
	}
	return sameAlerts
}

// doubtsOn returns the doubts of round r that bear on outcome o: those
// at its seat (tracker.Round.DoubtsOn), or, for a share of the
// progressive meter, every doubt of the round, since a share is worth
// what the awards judged before it left of the meter, at any seat; the
// dealer's row's own only where o's wager turns on the dealer's cards
// (dealer).
func doubtsOn(r tracker.Round, o evaluator.Outcome, dealer bool) []string {
	if o.MeterShare > 0 {
		return r.DoubtsOn(0, dealer)
	}
	return r.DoubtsOn(o.Seat, dealer)
}

// maxJudgements is how many judgements settled makes at most: as many
// as two doubtful cards that may be any card make (2,704). A card read
// as one of two cards (its candidates) makes only twice as many.
const maxJudgements = 52 * 52

// reads returns the cards an outcome was decided on with their
// confidences, and whether any of them is below the bar.
func (rc *Reconciler) reads(r tracker.Round, o evaluator.Outcome) ([]CardRead, bool) {
	pool := map[cards.Card][]tracker.Sighting{}
	for p, c := range r.Cards() { // the dealer's, then the seat's
		if p.Hand < 0 || p.Seat == o.Seat {
			pool[c.Card] = append(pool[c.Card], c.Sighting)
		}
	}
	var out []CardRead
	low := false
	for _, c := range o.Cards {
		var seen tracker.Sighting
		if ss := pool[c]; len(ss) > 0 {
			seen = ss[0]
			pool[c] = ss[1:]
		}
		text := "??" // a card the outcome needed but nobody read
		if c.Valid() || c.RankOnly() {
			text = c.String()
		}
		out = append(out, CardRead{Card: text, Confidence: seen.Confidence, Candidates: seen.Candidates})
		low = low || seen.Confidence < rc.cfg.MinConfidence
	}
	return out, low
}
