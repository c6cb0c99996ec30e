package pipeline

import (
	"fmt"
	"slices"

	"bjmonitor/alerts"
	"bjmonitor/cards"
	"bjmonitor/controller"
	"bjmonitor/game"
	"bjmonitor/tracker"
)

// Event takes one controller event, due at frame. game_start and game_end
// mark rounds; every other event is kept for its round's reconciliation (a
// meter reading, which names no round, goes with the round in play).
//
// The controller's round ids win over the rounds the tracker opened
// itself: a game_end for a round whose game_start the monitor did not see
// (it started, or the camera came back, mid-round) closes the round being
// rebuilt under the controller's id, with a doubt that makes its alerts
// review. Entries that cannot be judged against cards are judged as
// unjudged, with the reason, never dropped.
func (p *Pipeline) Event(e controller.Event, frame int) []Result {
	p.frame = max(p.frame, frame)
	switch e.Type {
	case controller.GameStart:
		return p.start(e.Round, frame)
	case controller.GameEnd:
		return p.end(e.Round, frame)
	}
	id := e.Round
	if id == "" {
		id = p.current
	}
	if id == "" {
		// A meter reading between rounds: it is judged at once, against
		// the meter as the last round left it.
		return p.betweenRounds(e, frame)
	}
	if p.current == "" && !slices.Contains(p.judged, id) {
		p.current = id // its game_start was not seen
	}
	var out []Result
	if _, ok := p.entries[id]; !ok && len(p.entries) >= maxPending {
		// Rounds that never ended (a lost game_end) must not pile up
		// over months: the oldest one's entries are judged now, without
		// cards.
		out = p.judgeOldest(frame)
	}
	if _, ok := p.entries[id]; !ok {
		p.order = append(p.order, id)
	}
	p.entries[id] = append(p.entries[id], e)
	return out
}

// maxPending bounds the rounds whose controller events wait for the round
// to finish.
const maxPending = 16

// start opens round id. A game_start inside a round the controller opened
// and never ended is an alert of its own; that round is judged as it
// stands. A game_start for a round already judged is ignored.
func (p *Pipeline) start(id string, frame int) []Result {
	if slices.Contains(p.judged, id) {
		return nil // a re-send of a round's game_start, once it is over
	}
	if id == p.current {
		// The round is already in play (its entries came first, or the
		// same game_start came again): the cards being rebuilt are its.
		if p.trk.Claim(id, "") {
			return nil
		}
		return p.finish(p.trk.StartRound(id, frame))
	}
	open := p.current
	ended := p.early[open] > 0 // its game_end came, early
	out := p.finish(p.trk.StartRound(id, frame))
	if open != "" && !ended {
		out = append(out, p.judgeWithoutCards(open, frame, fmt.Sprintf("a game_start for round %s came before this round's game_end", id))...)
		a := p.rec.ProcedureAlert(open, frame, alerts.StartInOpenRound, 1,
			fmt.Sprintf("game_start for round %s while round %s was open: its game_end never came", id, open))
		out = append(out, Result{Round: tracker.Round{ID: open, StartFrame: frame, EndFrame: frame}, Alerts: []alerts.Alert{a}})
	}
	p.current = id
	return out
}

// end closes round id, as the controller's game_end says, unless the round
// is plainly still being dealt: then the game_end is an alert of its own,
// and the round ends when the table is cleared (or at a later game_end),
// so that an early or forged game_end neither cuts the round short nor
// turns its sure alerts into doubtful ones.
func (p *Pipeline) end(id string, frame int) []Result {
	if slices.Contains(p.judged, id) {
		return nil // judged already: this game_end comes too late
	}
	snap, ok := p.trk.Snapshot()
	if !ok {
		p.current = ""
		p.startUnseen[id] = true
		return p.judgeWithoutCards(id, frame, "the monitor did not see this round start; its cards were not tracked")
	}
	var out []Result
	switch {
	case snap.ID == id:
	case snap.ID != "" && snap.ID == p.current:
		// game_start named another round than game_end: the controller's
		// last word wins, and the other round's entries are judged
		// without cards.
		p.trk.Claim(id, fmt.Sprintf("game_start named round %s, game_end round %s", snap.ID, id))
		out = p.judgeWithoutCards(snap.ID, frame, "its game_end never came")
	default:
		// A round the tracker opened itself, from the cards in view.
		p.trk.Claim(id, notSeenStart)
		p.startUnseen[id] = true
	}
	p.current = id
	if why := p.unfinished(snap); why != "" {
		p.early[id]++
		p.trk.EndWhenCleared()
		a := p.rec.ProcedureAlert(id, frame, alerts.EarlyGameEnd, p.early[id],
			fmt.Sprintf("game_end for round %s while the round was still being dealt (%s); the round is judged when the table is cleared", id, why))
		return append(out, Result{Round: tracker.Round{ID: id, StartFrame: frame, EndFrame: frame}, Alerts: []alerts.Alert{a}})
	}
	rd, _ := p.trk.EndRound(frame)
	p.current = ""
	return append(out, p.finish([]tracker.Round{rd})...)
}

// notSeenStart is the doubt on a round the monitor began watching after
// it started.
const notSeenStart = "the monitor did not see this round start; cards dealt before it began watching may be missing"

// unfinished says why round r is plainly still being dealt, or "" when it
// may be over: a player hand is still standing while the dealer has no
// card yet, the hole card still face down, or a total the rules say the
// dealer must draw on.
func (p *Pipeline) unfinished(r tracker.Round) string {
	standing := false
	for _, s := range r.Seats {
		for _, h := range s.Hands {
			standing = standing || !h.Busted && !(len(s.Hands) == 1 && h.Total == 21 && len(h.Cards) == 2)
		}
	}
	switch {
	case !standing:
		return ""
	case len(r.Dealer) == 0:
		return "the dealer has no card yet"
	case slices.ContainsFunc(r.Dealer, func(c tracker.Card) bool { return c.FaceDown }):
		return "the dealer's hole card is still face down"
	}
	for _, v := range r.Game().Violations(p.cfg.Rules) {
		if v.Rule == game.DealerDraws {
			return fmt.Sprintf("the dealer must still draw on %d", cards.Score(r.Game().Dealer.Cards).Total)
		}
	}
	return ""
}

// betweenRounds judges a meter reading that came when no round was in
// play against the meter as the last round judged left it, under that
// round's id. Before any round has been judged, the monitor's meter is
// only its configured start: the reading sets it.
func (p *Pipeline) betweenRounds(e controller.Event, frame int) []Result {
	if len(p.judged) == 0 {
		if e.Type == controller.Meter && e.Bet == "blazing7s" {
			p.rec.Meter().Set(e.Amount)
		}
		return nil
	}
	last := p.judged[len(p.judged)-1]
	rd := tracker.Round{ID: last, StartFrame: frame, EndFrame: frame}
	outcomes, found := p.rec.Round(rd, []controller.Event{e})
	return []Result{{Round: rd, Outcomes: outcomes, Alerts: found}}
}

// judgeOldest judges the entries of the round that has waited longest
// for its game_end.
func (p *Pipeline) judgeOldest(frame int) []Result {
	for _, id := range p.order {
		if _, ok := p.entries[id]; ok {
			if id == p.current {
				p.current = ""
			}
			return p.judgeWithoutCards(id, frame, fmt.Sprintf("no game_end came while %d later rounds began", maxPending))
		}
	}
	return nil
}

// judgeWithoutCards judges round id's entries, if any, with no cards: each
// wager goes out unjudged, saying why.
func (p *Pipeline) judgeWithoutCards(id string, frame int, why string) []Result {
	if len(p.entries[id]) == 0 {
		p.forget(id)
		return nil
	}
	return p.finish([]tracker.Round{{ID: id, StartFrame: frame, EndFrame: frame, Doubts: []string{why}}})
}

// Flush closes the round still open, at the end of the video or on
// shutdown, and reconciles it; the entries of every other round still
// waiting for its game_end are judged without cards.
func (p *Pipeline) Flush() []Result {
	if snap, ok := p.trk.Snapshot(); ok && p.current != "" && snap.ID != p.current {
		p.trk.Claim(p.current, notSeenStart)
		p.startUnseen[p.current] = true
	}
	out := p.finish(p.trk.Flush())
	for _, id := range slices.Clone(p.order) {
		out = append(out, p.judgeWithoutCards(id, p.frame, "the monitor stopped before this round's game_end")...)
	}
	p.current = ""
	return out
}

// Rebuilt reports whether the result holds a round the monitor saw dealt
// to at least one seat: only such a round is published as a round record.
// A result without one (a round the monitor did not see, or a procedure
// alert alone) still carries its alerts, each naming its round.
func (r Result) Rebuilt() bool { return len(r.Round.Seats) > 0 }

// Pending is the number of rounds whose controller events wait for the
// round to finish.
func (p *Pipeline) Pending() int { return len(p.entries) }

func (p *Pipeline) finish(rounds []tracker.Round) []Result {
	if len(rounds) == 0 {
		return nil
	}
	out := make([]Result, 0, len(rounds))
	for _, rd := range rounds {
		if rd.ID == p.current {
			p.current = ""
		}
		rd.StartUnseen = p.startUnseen[rd.ID]
		delete(p.startUnseen, rd.ID)
		if p.cfg.Doubts != nil {
			rd.Doubts = append(rd.Doubts, p.cfg.Doubts(rd)...)
		}
		outcomes, found := p.rec.Round(rd, p.entries[rd.ID])
		p.forget(rd.ID)
		out = append(out, Result{Round: rd, Outcomes: outcomes, Alerts: found})
	}
	return out
}

// forget drops what the pipeline holds of round id, once judged.
func (p *Pipeline) forget(id string) {
	delete(p.entries, id)
	delete(p.early, id)
	delete(p.startUnseen, id)
	p.order = slices.DeleteFunc(p.order, func(o string) bool { return o == id })
	if !slices.Contains(p.judged, id) {
		p.judged = append(p.judged, id)
		if len(p.judged) > maxPending {
			p.judged = p.judged[1:]
		}
	}
}
