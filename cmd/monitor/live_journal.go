package main

import (
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"sync"

	"bjmonitor/controller"
	"bjmonitor/driver"
	"bjmonitor/pipeline"
	"bjmonitor/tracker"
)

// journalFile is the controller journal's name in the outbox directory,
// judgedFile that of the ids of the rounds judged lately.
const (
	journalFile = "controller.journal"
	judgedFile  = "controller.judged"
)

// journal keeps on disk the controller events the live monitor has taken
// and not yet judged (controller.Journal), so that a monitor killed in
// the middle of a round, started again, judges the round with every entry
// it had: its game_start and wagers are in no broker's queue any more.
type journal struct {
	// mu makes journaling an event and handing it to the frame loop one
	// step, and so clearing the journal while the loop holds nothing: an
	// event journaled is then always one the loop holds.
	mu  sync.Mutex
	j   *controller.Journal
	drv *driver.Driver
	met *metrics
	log *slog.Logger
	// open are the rounds that were open when the monitor was killed,
	// from the events replayed at start (openAtKill); each leaves once it
	// is judged. It is read and written on the frame loop's goroutine
	// only.
	open    map[string]bool
	failing bool // an append failed (logged once until one succeeds)
	dropped int  // the journal's Dropped, as last counted
	// judged keeps on disk the ids of the rounds judged lately, so that
	// a monitor started again still knows them (seed, for the pipeline:
	// Pipeline.SeedJudged). It is used on the frame loop's goroutine.
	judged        *controller.Judged
	seed          []string
	judgedFailing bool // a Save failed (logged once until one succeeds)
}

// openJournal opens the journal in the outbox directory and hands the
// events it holds to the frame loop, ahead of any the broker delivers, in
// the order they came, but for late game_ends of rounds judged before the
// kill (controller.Resume), which are logged and counted. Their seqs, the
// late ones' too, join dedup, so that a re-delivery of one is skipped.
// Their times are dropped: t counted from the killed run's first frame,
// and every one of them was due by now.
func openJournal(dir string, drv *driver.Driver, dedup *controller.Dedup, met *metrics, log *slog.Logger) (*journal, error) {
	cj, events, skipped, err := controller.OpenJournal(filepath.Join(dir, journalFile))
	if cj == nil {
		return nil, fmt.Errorf("mqtt.outbox: %w", err)
	}
	if err != nil {
		log.Warn("the controller journal cannot be written; its events are kept in memory", "err", err)
	}
	if skipped > 0 {
		met.journal.WithLabelValues("skipped").Add(float64(skipped))
		log.Warn("controller journal: torn or corrupt lines skipped", "lines", skipped)
	}
	events, late := controller.Resume(events)
	if len(late) > 0 {
		met.journal.WithLabelValues("late_game_end").Add(float64(len(late)))
		for _, e := range late {
			dedup.Repeat(e)
			log.Warn("controller journal: a game_end for a round judged before the restart is not taken again", "round", e.Round)
		}
	}
	jn := &journal{j: cj, drv: drv, met: met, log: log, open: openAtKill(events)}
	if jn.judged, jn.seed, err = openJudged(dir, met, log); err != nil {
		cj.Close()
		return nil, err
	}
	rounds := map[string]bool{}
	for _, e := range events {
		dedup.Repeat(e)
		e.T, e.TS = nil, nil
		drv.Put(e)
		if e.Round != "" {
			rounds[e.Round] = true
		}
	}
	if len(events) > 0 {
		met.journal.WithLabelValues("replayed").Add(float64(len(events)))
		log.Info("controller events taken before the restart, replayed from the journal", "events", len(events), "rounds", len(rounds), "open", slices.Sorted(maps.Keys(jn.open)))
	}
	return jn, nil
}

// openJudged opens the file of the rounds judged lately in the outbox
// directory, and returns the ids it holds. It fails only when the file
// cannot be read; one torn or corrupt holds no id, and is logged and
// counted: a late event for a round judged before the restart is then
// taken as the round in play's, as before the file was kept.
func openJudged(dir string, met *metrics, log *slog.Logger) (*controller.Judged, []string, error) {
	jd, ids, err := controller.OpenJudged(filepath.Join(dir, judgedFile))
	if jd == nil {
		return nil, nil, fmt.Errorf("mqtt.outbox: %w", err)
	}
	if err != nil {
		met.journal.WithLabelValues("judged_corrupt").Inc()
		log.Warn("the rounds judged before the restart are not known: a late game_end or entry for one may be taken as the round in play's", "err", err)
	}
	return jd, ids, nil
}

// lateEnd logs and counts a game_end for a round judged already, which
// the pipeline skipped (pipeline.Config.LateEnd). It runs on the frame
// loop's goroutine.
func (jn *journal) lateEnd(round string) {
	jn.met.lateEnds.Inc()
	jn.log.Warn("controller game_end for a round judged already: skipped (a re-send without seq, or a second one)", "round", round)
}

// openAtKill is the rounds that were open when the monitor was killed, as
// the controller's events in the journal tell it: the last game_start's,
// or, with none since the last game_end, the round the entries after it
// name (the monitor did not see that round's game_start either), and
// every round held open after its game_end (controller.Resume). Only those
// rounds' cards lay on the felt, partly dealt, at the kill: the other
// rounds in the journal were over (their game_end came, and ended them)
// or left behind by a later game_start, and are judged without their
// cards whatever the restart.
func openAtKill(events []controller.Event) map[string]bool {
	open := map[string]bool{}
	last := ""
	ended := map[string]bool{}
	for _, e := range events {
		switch {
		case e.Type == controller.GameStart:
			last = e.Round
		case e.HeldOpen:
			open[e.Round] = true
		case e.Type == controller.GameEnd:
			ended[e.Round] = true
			if e.Round == last {
				last = ""
			}
		case e.Round != "" && last == "" && !ended[e.Round]:
			last = e.Round // a late entry for a round over is not one
		}
	}
	if last != "" {
		open[last] = true
	}
	return open
}

// take journals e and hands it to the frame loop. An event the disk
// refuses is handed on all the same, logged and counted.
func (jn *journal) take(e controller.Event) {
	jn.mu.Lock()
	defer jn.mu.Unlock()
	err := jn.j.Append(e)
	jn.drv.Put(e)
	if d := jn.j.Dropped(); d > jn.dropped {
		jn.met.journal.WithLabelValues("dropped").Add(float64(d - jn.dropped))
		jn.log.Warn("controller journal full: its oldest events dropped", "dropped", d-jn.dropped)
		jn.dropped = d
	}
	switch {
	case err != nil:
		jn.met.journal.WithLabelValues("unwritten").Inc()
		if !jn.failing {
			jn.log.Warn("controller journal: the disk refused an event; it is judged all the same, but a restart before its round ends would lose it", "err", err)
		}
		jn.failing = true
	case jn.failing:
		jn.log.Info("controller journal: the disk takes events again")
		jn.failing = false
	}
}

// settle drops from the journal what the pipeline has judged: the rounds
// of results just published, and everything once the pipeline and the
// frame loop hold nothing; and keeps the ids of the rounds judged on disk
// (saveJudged). It runs on the frame loop's goroutine.
func (jn *journal) settle(pl *pipeline.Pipeline, results []pipeline.Result) {
	for _, res := range results {
		if id := res.Round.ID; !pl.Holds(id) {
			if err := jn.j.Forget(id); err != nil {
				jn.log.Warn("controller journal", "err", err)
			}
		}
	}
	jn.saveJudged(pl)
	if jn.j.Len() == 0 {
		return
	}
	jn.mu.Lock()
	defer jn.mu.Unlock()
	if pl.Idle() && jn.drv.Held() == 0 {
		if err := jn.j.Clear(); err != nil {
			jn.log.Warn("controller journal", "err", err)
		}
	}
}

// saveJudged writes the ids of the rounds the pipeline judged lately to
// disk when they changed. It comes after the journal forgot their events
// (settle): a kill between the two leaves the round in neither, and a
// late event for it is then taken as the round in play's (a window of
// milliseconds); the other order would leave a round in both, whose
// events, taken again, would be judged without its cards.
func (jn *journal) saveJudged(pl *pipeline.Pipeline) {
	switch err := jn.judged.Save(pl.Judged()); {
	case err != nil && !jn.judgedFailing:
		jn.log.Warn("the rounds judged cannot be written; a restart would not know the last ones", "err", err)
		jn.judgedFailing = true
	case err == nil && jn.judgedFailing:
		jn.log.Info("the rounds judged are written again")
		jn.judgedFailing = false
	}
}

// doubts gives a round open at the kill its doubt: the restarted monitor
// saw its cards only from the restart, all at once, so cards swept before
// then (a bust) are missing and the order they were dealt in (a split,
// the third card) is not known.
func (jn *journal) doubts(r tracker.Round) []string {
	if !jn.open[r.ID] {
		return nil
	}
	delete(jn.open, r.ID)
	return []string{"the monitor restarted during this round: cards dealt before it began watching again may be missing, or out of order"}
}

// close closes the journal's file.
func (jn *journal) close() {
	if err := jn.j.Close(); err != nil {
		jn.log.Warn("controller journal", "err", err)
	}
}
