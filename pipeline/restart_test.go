package pipeline

import (
	"path/filepath"
	"testing"

	"bjmonitor/controller"
)

// TestRestartLateEntries: round 1000 is judged and published, and the
// monitor is killed, then started again. A late controller event for
// round 1000 (a re-send without seq, a second entry), taken before the
// kill (from the journal) or arriving after the restart, is handled as it
// is in a run without the kill: a game_end is skipped (and counted), an
// entry is kept for round 1000 and judged without cards, and round 1001
// keeps its cards, its id and its sure alert. The restarted pipeline
// knows round 1000 was judged from the ids the killed one left on disk
// (controller.Judged, SeedJudged).
func TestRestartLateEntries(t *testing.T) {
	for _, tt := range []struct {
		name string
		// before is taken after round 1000 was published, before the kill.
		before []string
		// after plays the restarted run.
		after func(f *felt)
		// lateEnds is the number of game_ends skipped as late, by the
		// pipeline or (from the journal) by controller.Resume.
		lateEnds int
		alerts   string
	}{
		{"a late game_end after the restart, before the next round", nil, func(f *felt) {
			f.event(end)
			nextRound(f)
		}, 1, "1001:underpaid:mismatch"},
		{"a late game_end after the restart, inside the next round", nil, func(f *felt) {
			f.event(start1001, wager1001)
			f.lay("TS", seat4[0])
			f.lay("9C", dealer[0])
			f.event(end)
			f.lay("8D", seat4[1])
			f.lay("XX", dealer[1])
			f.turn("7H", dealer[1])
			f.lay("2S", dealer[2])
			f.event(paid1001, end1001)
			f.clear()
		}, 1, "1001:underpaid:mismatch"},
		{"a late payout before the kill", []string{paid10}, nextRound, 0,
			"1001:underpaid:mismatch 1000:paid_without_wager:review"},
		{"a late payout after the restart", nil, func(f *felt) {
			f.event(paid10)
			nextRound(f)
		}, 0, "1001:underpaid:mismatch 1000:paid_without_wager:review"},
		{"a late wager after the restart", nil, func(f *felt) {
			f.event(wager)
			nextRound(f)
		}, 0, "1001:underpaid:mismatch 1000:unjudged:review"},
		{"a late payout and game_end before the kill", []string{paid10, end}, nextRound, 1,
			"1001:underpaid:mismatch 1000:paid_without_wager:review"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The same events without the kill.
			whole := &felt{tb: t, p: newPipeline(t)}
			lateEnds := 0
			whole.p.cfg.LateEnd = func(string) { lateEnds++ }
			playRound1000(whole, whole.event)
			whole.results()
			whole.event(tt.before...)
			tt.after(whole)
			whole.got = append(whole.got, whole.p.Flush()...)
			got, _ := kinds(whole.results())
			if got != tt.alerts || lateEnds != tt.lateEnds {
				t.Fatalf("without the kill: alerts %q, late game_ends %d; want %q, %d", got, lateEnds, tt.alerts, tt.lateEnds)
			}

			dir := t.TempDir()
			j, _, _, err := controller.OpenJournal(filepath.Join(dir, "controller.journal"))
			if err != nil {
				t.Fatal(err)
			}
			jd, _, err := controller.OpenJudged(filepath.Join(dir, "controller.judged"))
			if err != nil {
				t.Fatal(err)
			}
			killed := &felt{tb: t, p: newPipeline(t)}
			take := journaled(t, j, killed)
			playRound1000(killed, take)
			if got, _ := kinds(killed.results()); got != "1000:underpaid:mismatch" {
				t.Fatalf("round 1000: alerts %q, want 1000:underpaid:mismatch", got)
			}
			// Published: the journal forgets it, the ids judged are saved.
			if err := j.Forget("1000"); err != nil {
				t.Fatal(err)
			}
			if err := jd.Save(killed.p.Judged()); err != nil {
				t.Fatal(err)
			}
			take(tt.before...)
			if n := len(killed.results()); n != 0 {
				t.Fatalf("%d results before the kill from the late events", n)
			}
			j.Close() // killed

			_, events, _, err := controller.OpenJournal(filepath.Join(dir, "controller.journal"))
			if err != nil {
				t.Fatal(err)
			}
			_, judged, err := controller.OpenJudged(filepath.Join(dir, "controller.judged"))
			if err != nil {
				t.Fatal(err)
			}
			restarted := &felt{tb: t, p: newPipeline(t), frame: killed.frame}
			lateEnds = 0
			restarted.p.cfg.LateEnd = func(string) { lateEnds++ }
			restarted.p.SeedJudged(judged)
			replay, late := controller.Resume(events)
			for _, e := range replay {
				restarted.got = append(restarted.got, restarted.p.Event(e, restarted.frame)...)
			}
			tt.after(restarted)
			restarted.got = append(restarted.got, restarted.p.Flush()...)
			got, _ = kinds(restarted.results())
			if got != tt.alerts || lateEnds+len(late) != tt.lateEnds {
				t.Errorf("restarted: alerts %q, late game_ends %d (%d left out of the replay); want %q, %d",
					got, lateEnds+len(late), len(late), tt.alerts, tt.lateEnds)
			}
		})
	}
}

// playRound1000 plays round 1000, its 21+3 underpaid, to the table
// cleared; take applies the controller's events.
func playRound1000(f *felt, take func(...string)) {
	take(start, wager)
	dealRound(f)
	take(paid35, end)
	f.clear()
}
