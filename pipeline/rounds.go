package pipeline

import (
	"fmt"
	"slices"

	"bjmonitor/alerts"
	"bjmonitor/cards"
	"bjmonitor/controller"
	"bjmonitor/evaluator"
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
// unjudged, with the reason, never dropped. Entries that break the
// dealer's procedure are alerts of their own, and are not obeyed where
// obeying them would cut a round short: a game_end while the round is
// plainly still being dealt (end), a game_start inside the round in play
// (startInside). A game_start or game_end for a round judged lately (in
// this run, or in the last: SeedJudged) comes too late to begin or end
// anything, and is skipped (a game_end is told to Config.LateEnd); an
// entry for one is kept for that round, never the round in play, and is
// judged without cards once maxPending rounds wait, or at Flush.
func (p *Pipeline) Event(e controller.Event, frame int) []Result {
	p.frame = max(p.frame, frame)
	switch e.Type {
	case controller.GameStart:
		return p.gameStart(e.Round, frame)
	case controller.GameEnd:
		if slices.Contains(p.judged, e.Round) {
			// It comes too late to end anything.
			if p.cfg.LateEnd != nil {
				p.cfg.LateEnd(e.Round)
			}
			return nil
		}
		if e.HeldOpen {
			return p.resumeEarlyEnd(e.Round, frame)
		}
		var out []Result
		if p.held != nil && e.Round != p.held.ID && e.Round != p.next {
			// Another round ends: the held one's game_end is not coming.
			out = append(p.release(frame), p.advance(frame)...)
		}
		out = append(out, p.end(e.Round, frame)...)
		return append(out, p.advance(frame)...)
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

// gameStart takes a game_start. A re-send of one already taken (the held
// round's, the one waiting to begin, or one of a round judged lately) changes
// nothing. Any other game_start supersedes the one waiting, and ends the
// wait for the held round's game_end.
func (p *Pipeline) gameStart(id string, frame int) []Result {
	if id == p.next || p.held != nil && id == p.held.ID || slices.Contains(p.judged, id) {
		return nil
	}
	var out []Result
	if p.held != nil {
		out = p.release(frame)
		p.next = ""
	}
	out = append(out, p.start(id, frame)...)
	return append(out, p.advance(frame)...)
}

// start opens round id. A game_start for a round already judged is
// ignored. One that comes while the controller's round in play is being
// dealt (startInside) does not cut it short; with nothing of the open
// round on the felt, its entries are judged without cards, and the
// game_start is an alert of its own unless the open round's game_end came.
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
	if open != "" && p.inPlay(open) {
		return p.startInside(open, id, frame)
	}
	ended := p.early[open] > 0 // its game_end came, early
	out := p.finish(p.trk.StartRound(id, frame))
	if open != "" && !ended {
		a := p.insideAlert(open, id, frame, "no card of it was seen, so its entries are judged without cards")
		out = append(out, p.judgeWithoutCards(open, frame, fmt.Sprintf("a game_start for round %s came before this round's game_end", id))...)
		out = append(out, a)
	}
	p.current = id
	return out
}

// inPlay reports whether the tracker holds round open in play: a round
// with cards on it, or one the controller has made entries for.
func (p *Pipeline) inPlay(open string) bool {
	snap, ok := p.trk.Snapshot()
	return ok && (len(snap.Dealer.Cards) > 0 || len(snap.Seats) > 0 || len(p.entries[open]) > 0)
}

// startInside takes a game_start for round id while round open is being
// dealt and its game_end has not come (or came early). Obeying it would
// cut the open round short or give its cards another round's entries, so
// a forged game_start could turn sure alerts into doubtful ones: the open
// round goes on as it stands, to be judged at its game_end, and id begins
// once it is over (Pipeline.next). Where the open round's game_end was
// lost (a broker gap), the table cleared ends it instead (hold), and it is
// judged, with a doubt, once the next round's first card comes (release).
func (p *Pipeline) startInside(open, id string, frame int) []Result {
	snap, _ := p.trk.Snapshot()
	if snap.ID != open {
		// A round the tracker opened itself, from the cards in view.
		p.trk.Claim(open, notSeenStart)
		p.startUnseen[open] = true
	}
	p.trk.EndWhenCleared()
	p.next = id
	p.nextFrom.cards = len(snap.Dealer.Cards) > 0 || len(snap.Seats) > 0
	p.nextFrom.entries = len(p.entries[open])
	if p.early[open] > 0 {
		return nil // the controller did end it, early: that alert is raised
	}
	return []Result{p.insideAlert(open, id, frame, fmt.Sprintf("it goes on, and round %s begins once it is over", id))}
}

// insideAlert is the procedure alert on a game_start for round id that
// came while round open had had no game_end.
func (p *Pipeline) insideAlert(open, id string, frame int, then string) Result {
	p.inside[open]++
	a := p.rec.ProcedureAlert(open, frame, alerts.StartInOpenRound, p.inside[open],
		fmt.Sprintf("game_start for round %s while round %s was open: its game_end had not come; %s", id, open, then))
	return Result{Round: tracker.Round{Round: game.Round{ID: open}, StartFrame: frame, EndFrame: frame}, Alerts: []alerts.Alert{a}}
}

// hold keeps back the round in play when the tracker closed it (the table
// cleared) while a game_start waits for it to be over and its game_end
// has not come: it is judged at that game_end, if it comes before the
// next round's first card, as it would have been without the early
// game_start.
func (p *Pipeline) hold(rounds []tracker.Round) []tracker.Round {
	if p.next == "" {
		return rounds
	}
	return slices.DeleteFunc(rounds, func(rd tracker.Round) bool {
		if rd.ID != p.current || p.early[rd.ID] > 0 || p.held != nil {
			return false
		}
		p.held = &rd
		return true
	})
}

// release judges the held round: its game_end never came.
func (p *Pipeline) release(frame int) []Result {
	rd := *p.held
	p.held = nil
	next := "another round"
	if p.next != "" {
		next = "round " + p.next
	}
	rd.Doubts = append(rd.Doubts, fmt.Sprintf("its game_end never came: a game_start for %s came while it was open, and the table was cleared (frame %d); entries made for it since are not in it", next, rd.EndFrame))
	return p.finish([]tracker.Round{rd})
}

// advance begins the round whose game_start came while another was open,
// once no round is in play.
func (p *Pipeline) advance(frame int) []Result {
	if p.current != "" || p.held != nil || p.next == "" {
		return nil
	}
	id := p.next
	p.next = ""
	return p.start(id, frame)
}

// observed judges the rounds the tracker finished at a frame, holding
// back the one whose game_end may still come (hold), and judges the held
// round once the next round's first card has been counted.
func (p *Pipeline) observed(rounds []tracker.Round, frame int) []Result {
	out := p.finish(p.hold(rounds))
	if p.held != nil {
		if snap, ok := p.trk.Snapshot(); ok && (len(snap.Dealer.Cards) > 0 || len(snap.Seats) > 0) {
			out = append(out, p.release(frame)...)
		}
	}
	return append(out, p.advance(frame)...)
}

// end closes round id, as the controller's game_end says, unless the round
// is plainly still being dealt: then the game_end is an alert of its own,
// and the round ends when the table is cleared (or at a later game_end),
// so that an early or forged game_end neither cuts the round short nor
// turns its sure alerts into doubtful ones.
func (p *Pipeline) end(id string, frame int) []Result {
	if id == p.next && !p.dealt(id) {
		return p.notDealt(id, frame)
	}
	if p.held != nil {
		// The held round's own game_end (Event released any other).
		rd := *p.held
		p.held = nil
		return p.finish([]tracker.Round{rd})
	}
	if id == p.next {
		p.next = "" // it ends before it began, dealt: the cards in play are its
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
		return append(out, Result{Round: tracker.Round{Round: game.Round{ID: id}, StartFrame: frame, EndFrame: frame}, Alerts: []alerts.Alert{a}})
	}
	rd, _ := p.trk.EndRound(frame)
	p.current = ""
	return append(out, p.finish([]tracker.Round{rd})...)
}

// resumeEarlyEnd takes a game_end that a monitor stopped mid-round (a
// kill) had taken and not obeyed, taken again from its journal after the
// restart (controller.Event.HeldOpen): it came while round id was still
// being dealt (end), so the round was left to end when the table is
// cleared, and its procedure alert went out then. The restarted monitor
// has not seen the round's cards yet, so it cannot judge the round now
// without judging it without them: the round stays open in the same way,
// to be judged when the table is cleared or at a later game_end that
// finds it over, as it would have been without the kill. The alert is not
// raised again. Should the monitor come back to a table cleared while it
// was down, a felt seen empty ends the round, judged without cards
// (tracker's EndWhenSeenCleared), and the next round begins. A game_end
// for another round than the one in play is taken as any other (end).
func (p *Pipeline) resumeEarlyEnd(id string, frame int) []Result {
	if id != p.current {
		return p.end(id, frame)
	}
	var out []Result
	if _, ok := p.trk.Snapshot(); !ok {
		// Its game_start was not seen before the kill either: only its
		// entries named it.
		out = p.finish(p.trk.StartRound(id, frame))
		p.trk.Claim(id, notSeenStart)
		p.startUnseen[id] = true
	}
	p.early[id]++
	p.trk.EndWhenSeenCleared()
	return out
}

// dealt reports whether round next, whose game_start came while round
// current was being dealt, was dealt itself by its game_end, which has
// come: the dealer started it without ending current (or current's
// game_end was lost), and the cards in play are next's. That is so only
// when no card of current lay on the felt at next's game_start, the
// controller made no entry for current since but made some for next, and
// cards lie on the felt now. Otherwise the cards in play are current's:
// a game_start and game_end inside it, forged or mistaken, must not take
// them from it (notDealt).
func (p *Pipeline) dealt(next string) bool {
	if p.held != nil || p.nextFrom.cards || len(p.entries[p.current]) > p.nextFrom.entries || len(p.entries[next]) == 0 {
		return false
	}
	snap, ok := p.trk.Snapshot()
	return ok && (len(snap.Dealer.Cards) > 0 || len(snap.Seats) > 0)
}

// notDealt takes the game_end of round id, whose game_start came while
// the round in play was being dealt, and which was never dealt (dealt).
// The round in play goes on as it would have without that game_start, to
// be judged at its own game_end (or, held, as hold says), so that a
// forged game_start and game_end neither cut it short nor turn its sure
// alerts into doubtful ones. The game_end is an alert of its own, and
// round id's entries, if any, are judged without cards.
func (p *Pipeline) notDealt(id string, frame int) []Result {
	open := p.current
	p.next = ""
	if p.held == nil && p.early[open] == 0 {
		p.trk.EndAtGameEnd()
	}
	a := p.rec.ProcedureAlert(id, frame, alerts.EndNotDealt, 1,
		fmt.Sprintf("game_end for round %s, whose game_start came while round %s was being dealt: no card was dealt to round %s, and round %s goes on", id, open, id, open))
	out := p.judgeWithoutCards(id, frame, fmt.Sprintf("no card was dealt to this round: round %s was in play from its game_start to its game_end", open))
	return append(out, Result{Round: tracker.Round{Round: game.Round{ID: id}, StartFrame: frame, EndFrame: frame}, Alerts: []alerts.Alert{a}})
}

// notSeenStart is the doubt on a round the monitor began watching after
// it started.
const notSeenStart = "the monitor did not see this round start; cards dealt before it began watching may be missing"

// unfinished says why round r is plainly still being dealt, or "" when it
// may be over: a player hand is still standing while the dealer has no
// card yet, only the up card (the initial deal, or, on a table without a
// hole card, the players still taking cards), the hole card still face
// down (the players still taking cards), or a total the rules say the
// dealer must draw on. The dealer plays last, so while the players take
// cards the dealer's hand shows it; a player hand of one card beside a
// dealer's hand played out is a card the camera missed (a doubt on the
// round), not a round still being dealt.
func (p *Pipeline) unfinished(r tracker.Round) string {
	standing := false
	for _, s := range r.Seats {
		for _, h := range s.Hands {
			standing = standing || !h.Busted() && !(len(s.Hands) == 1 && h.Score().Total == 21 && len(h.Cards) == 2)
		}
	}
	switch {
	case !standing:
		return ""
	case len(r.Dealer.Cards) == 0:
		return "the dealer has no card yet"
	case len(r.Dealer.Cards) == 1:
		return "the dealer holds only the up card: the players are still taking cards"
	case slices.ContainsFunc(r.HandCards(0, -1), func(c tracker.Card) bool { return c.FaceDown }):
		return "the dealer's hole card is still face down"
	}
	for _, v := range r.Violations(p.cfg.Rules) {
		if v.Rule == game.DealerDraws {
			return fmt.Sprintf("the dealer must still draw on %d", cards.Score(r.Dealer.Cards).Total)
		}
	}
	return ""
}

// betweenRounds judges a meter reading that came when no round was in
// play against the meter as the last round judged left it, under that
// round's id. Before any round has been judged, the monitor's meter is
// only its configured start: the reading sets it. A reading for a bet
// with no meter (Blazing 7's is the one progressive) changes nothing
// here or in a round; the monitor's intake (live, replay) skips it,
// logged and counted, before it reaches the pipeline.
func (p *Pipeline) betweenRounds(e controller.Event, frame int) []Result {
	last := p.lastJudged
	if last == "" {
		if e.Type == controller.Meter && e.Bet == string(evaluator.Blazing7s) {
			p.rec.Meter().Set(e.Amount)
		}
		return nil
	}
	rd := tracker.Round{Round: game.Round{ID: last}, StartFrame: frame, EndFrame: frame}
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
	return p.finish([]tracker.Round{{Round: game.Round{ID: id}, StartFrame: frame, EndFrame: frame, Doubts: []string{why}}})
}

// Flush closes the round still open, at the end of the video or on
// shutdown, and reconciles it; the entries of every other round still
// waiting for its game_end are judged without cards.
func (p *Pipeline) Flush() []Result {
	var out []Result
	if p.held != nil {
		out = p.release(p.frame)
	}
	out = append(out, p.advance(p.frame)...)
	if snap, ok := p.trk.Snapshot(); ok && p.current != "" && snap.ID != p.current {
		p.trk.Claim(p.current, notSeenStart)
		p.startUnseen[p.current] = true
	}
	out = append(out, p.finish(p.trk.Flush())...)
	for _, id := range slices.Clone(p.order) {
		out = append(out, p.judgeWithoutCards(id, p.frame, "the monitor stopped before this round's game_end")...)
	}
	p.current, p.next = "", ""
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

// Holds reports whether the pipeline still holds something of round id:
// in play, waiting to begin or to be judged, or entries kept for it.
func (p *Pipeline) Holds(id string) bool {
	_, kept := p.entries[id]
	return kept || id == p.current || id == p.next || p.held != nil && p.held.ID == id
}

// Idle reports whether the pipeline holds nothing of the controller's
// rounds: none in play, none waiting to begin or to be judged, no entry
// kept. Every controller event it took has then been judged.
func (p *Pipeline) Idle() bool {
	return p.current == "" && p.next == "" && p.held == nil && len(p.entries) == 0
}

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
	delete(p.inside, id)
	p.order = slices.DeleteFunc(p.order, func(o string) bool { return o == id })
	if !slices.Contains(p.judged, id) {
		p.judged = append(p.judged, id)
		if len(p.judged) > controller.JudgedMax {
			p.judged = p.judged[1:]
		}
		p.lastJudged = id
	}
}

// Judged is the ids of the rounds judged lately, oldest first, those
// given to SeedJudged included: for a live monitor to keep on disk
// (controller.Judged), so that after a restart it still knows them.
func (p *Pipeline) Judged() []string { return slices.Clone(p.judged) }

// SeedJudged tells a pipeline just opened the rounds a monitor's last
// run judged (Judged, kept across a kill), oldest first: a late event
// for one of them is then handled as for a round this pipeline judged
// (see Pipeline.Event), not taken as the round in play's. The meter
// between rounds is still set by the first reading (betweenRounds): the
// rounds judged before do not say what the meter stood at.
func (p *Pipeline) SeedJudged(ids []string) {
	p.judged = slices.Clone(ids[max(0, len(ids)-controller.JudgedMax):])
}
