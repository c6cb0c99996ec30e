package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"bjmonitor/internal/mqtttest"
	"bjmonitor/roundrecord"
)

// cleanSeverities returns the alerts of a clean run of a sample, id →
// severity: its replay golden file, which TestReplayGolden and
// TestLiveMatchesReplay hold replay and live to.
func cleanSeverities(t *testing.T, name string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "replay-"+name+".golden.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var a struct{ Type, ID, Severity string }
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatal(err)
		}
		if a.Type == "alert" {
			out[a.ID] = a.Severity
		}
	}
	return out
}

// received collects what a subscriber got on a table's topics: each
// alert's severity by id and how many times it came, and the round
// records. It fails on a record with an empty round id, an alert without
// a round, a round with no seats, or a null list.
type received struct {
	severity map[string]string
	kind     map[string]string
	count    map[string]int
	rounds   []string
	doubts   map[string][]string // by round
}

func receive(t *testing.T, msgs []mqtttest.Message) received {
	t.Helper()
	r := received{severity: map[string]string{}, kind: map[string]string{}, count: map[string]int{}, doubts: map[string][]string{}}
	for _, m := range msgs {
		kind := m.Topic[strings.LastIndexByte(m.Topic, '/')+1:]
		if kind != "alert" && kind != "round" && kind != "outcome" {
			continue
		}
		if strings.Contains(m.Payload, "null") {
			t.Errorf("%s record with a null: %.300s", kind, m.Payload)
		}
		var rec struct {
			ID, Round, Severity, Kind string
			Seats                     []json.RawMessage
		}
		if err := json.Unmarshal([]byte(m.Payload), &rec); err != nil {
			t.Fatalf("%s record: %v: %.200s", kind, err, m.Payload)
		}
		if rec.Round == "" {
			t.Errorf("%s record without a round: %.300s", kind, m.Payload)
		}
		switch kind {
		case "alert":
			r.severity[rec.ID] = rec.Severity
			r.kind[rec.ID] = rec.Kind
			r.count[rec.ID]++
		case "round":
			if len(rec.Seats) == 0 {
				t.Errorf("round %q published with no seats", rec.Round)
			}
			r.rounds = append(r.rounds, rec.Round)
			full, err := roundrecord.Parse([]byte(m.Payload))
			if err != nil {
				t.Fatalf("round record: %v: %.200s", err, m.Payload)
			}
			r.doubts[rec.Round] = full.DoubtsAt(0)
		}
	}
	return r
}

// compare checks alerts received against a clean run's: each clean alert
// arrived once, sure if it was sure in the clean run (a doubtful one may
// come sure, read better), or, where sure is false for its round, an alert
// on its round, seat and bet arrived (for review); every other alert is
// one of extra and arrived once, and no alert is sure unless the clean run
// raised it.
func compare(t *testing.T, got received, clean map[string]string, sure func(round string) bool, extra []string) {
	t.Helper()
	for id, sev := range clean {
		parts := strings.Split(id, ":")
		round := parts[1]
		if sure(round) {
			if g := got.severity[id]; g == "" || sev == "mismatch" && g != sev {
				t.Errorf("clean alert %s (%s): received %q", id, sev, g)
			}
			continue
		}
		prefix := strings.Join(parts[:4], ":") + ":"
		found := false
		for g := range got.severity {
			found = found || strings.HasPrefix(g, prefix)
		}
		if !found {
			t.Errorf("clean alert %s: nothing received on %s", id, prefix)
		}
	}
	for id, n := range got.count {
		if n != 1 {
			t.Errorf("alert %s received %d times", id, n)
		}
		if got.severity[id] == "mismatch" && clean[id] == "" {
			t.Errorf("alert %s is sure, but the clean run did not raise it", id)
		}
		parts := strings.Split(id, ":")
		if _, ok := clean[id]; !ok && sure(parts[1]) && !contains(extra, id) {
			t.Errorf("alert %s received, not raised by the clean run", id)
		}
	}
	for _, id := range extra {
		if got.count[id] == 0 {
			t.Errorf("alert %s not received", id)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// numbered gives each of a sample's controller events its seq (from 1).
func numbered(t *testing.T, table string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for i, line := range controllerLog(t, table) {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		e["seq"] = i + 1
		out = append(out, e)
	}
	return out
}

func encode(t *testing.T, es []map[string]any) []string {
	t.Helper()
	out := make([]string, len(es))
	for i, e := range es {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return out
}

// TestReplayForgedEntries replays the 1080p sample with entries that
// break the dealer's procedure, publishing to a real Mosquitto, and counts
// what a persistent QoS 1 subscriber received against the clean run: a
// forged game_end in the middle of round 1000 (the dealer on 16, still to
// draw), a top-up payout on an underpaid bet, a second payout on a bet
// paid right, a re-sent event (a seq seen before), and a game_start in the
// middle of each round (one naming the next round, one a round that never
// comes). Every clean alert arrives once with its severity: neither the
// forged game_end nor the forged game_starts turn a sure alert into a
// doubtful one, cut a round short or publish a round twice. Each breach is one procedure alert, for review;
// the re-sent event is skipped and counted.
func TestReplayForgedEntries(t *testing.T) {
	if testing.Short() {
		t.Skip("replays video")
	}
	const name = "freebet-1080p"
	es := numbered(t, name)
	es = append(es,
		map[string]any{"type": "game_end", "round": "1000", "t": 10.0, "seq": 1000},
		map[string]any{"type": "payout", "round": "1000", "seat": 2, "bet": "potofgold", "amount": 46, "t": 18.7, "seq": 1001},
		map[string]any{"type": "payout", "round": "1001", "seat": 6, "bet": "21+3", "amount": 18, "t": 31.3, "seq": 1002},
		// game_starts inside open rounds: one naming the next round, one
		// naming a round that never comes.
		map[string]any{"type": "game_start", "round": "1001", "t": 5.0, "seq": 1003},
		map[string]any{"type": "game_start", "round": "9999", "t": 30.0, "seq": 1004},
	)
	for _, e := range es {
		if e["type"] == "payout" && e["round"] == "1001" && e["seat"] == 6.0 && e["bet"] == "21+3" {
			resent := map[string]any{}
			for k, v := range e {
				resent[k] = v
			}
			resent["t"] = 31.4
			es = append(es, resent) // the same seq: a re-send
			break
		}
	}
	got, stderr := replayPublished(t, name, es)
	if !strings.Contains(stderr, "1 repeated events") {
		t.Errorf("the re-sent event not counted:\n%s", stderr)
	}
	extra := []string{
		name + ":1000:0::procedure:early_game_end",
		name + ":1000:2:potofgold:procedure:extra_payout:2",
		name + ":1001:6:21+3:procedure:extra_payout:2",
		name + ":1000:0::procedure:game_start_in_open_round",
		name + ":1001:0::procedure:game_start_in_open_round",
	}
	wantCleanAndProcedure(t, got, name, extra)
	t.Logf("tried: a forged game_end, two forged game_starts, a top-up and a second payout, a re-send; received %d alerts (%d clean, %d procedure), rounds %v",
		len(got.count), len(cleanSeverities(t, name)), len(extra), got.rounds)
}

// wantCleanAndProcedure checks that got holds every alert of the clean
// run of sample name once, with its severity, and the procedure alerts
// extra, for review, and that each of the sample's rounds was received
// once.
func wantCleanAndProcedure(t *testing.T, got received, name string, extra []string) {
	t.Helper()
	compare(t, got, cleanSeverities(t, name), func(string) bool { return true }, extra)
	for _, id := range extra {
		if got.severity[id] != "review" {
			t.Errorf("procedure alert %s: severity %q, want review", id, got.severity[id])
		}
	}
	if want := "1000 1001"; strings.Join(got.rounds, " ") != want {
		t.Errorf("rounds received %v, want %s, once each", got.rounds, want)
	}
}

// replayPublished replays a sample with the controller events es,
// publishing to a real Mosquitto, and returns what a persistent QoS 1
// subscriber received, with the replay's log.
func replayPublished(t *testing.T, name string, es []map[string]any) (received, string) {
	t.Helper()
	b := mqtttest.NewMosquitto(t, "persistence true\n")
	b.Start()
	watch := mqtttest.Subscribe(t, b.URL(), "officer", "bjmonitor-replay/"+name+"/#", false)
	log := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(log, []byte(strings.Join(encode(t, es), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MONITOR_MQTT_OUTBOX", filepath.Join(t.TempDir(), "outbox"))
	_, _, stderr, err := replaySample(t, name, log, sample(name, "mp4"),
		"--publish", "--broker", b.URL(), "--publish-wait", "60s")
	if err != nil {
		t.Fatalf("replay: %v\n%s", err, stderr)
	}
	return receive(t, watch.Messages(2*time.Second)), stderr
}

// TestReplayForgedPair replays the 1080p sample with a forged game_start
// and game_end pair inside each round, and counts what a persistent QoS 1
// subscriber received against the clean run: in round 1000 while the
// dealer still draws (10 s), in round 1001 once its cards are all out
// (38 s), a round id the controller never uses. Neither pair takes the
// round's cards: every clean alert arrives once with its severity, each
// round is published once under its own id, and each forged event is a
// procedure alert, for review.
func TestReplayForgedPair(t *testing.T) {
	if testing.Short() {
		t.Skip("replays video")
	}
	const name = "freebet-1080p"
	es := append(numbered(t, name),
		map[string]any{"type": "game_start", "round": "7777", "t": 10.0, "seq": 1000},
		map[string]any{"type": "game_end", "round": "7777", "t": 10.1, "seq": 1001},
		map[string]any{"type": "game_start", "round": "7778", "t": 38.0, "seq": 1002},
		map[string]any{"type": "game_end", "round": "7778", "t": 38.1, "seq": 1003},
	)
	got, _ := replayPublished(t, name, es)
	extra := []string{
		name + ":1000:0::procedure:game_start_in_open_round",
		name + ":7777:0::procedure:game_end_not_dealt",
		name + ":1001:0::procedure:game_start_in_open_round",
		name + ":7778:0::procedure:game_end_not_dealt",
	}
	wantCleanAndProcedure(t, got, name, extra)
	for round, d := range got.doubts {
		if len(d) > 0 {
			t.Errorf("round %s has doubts %q; the clean run had none", round, d)
		}
	}
	t.Logf("tried: a forged game_start and game_end inside each round; received %d alerts (%d clean, %d procedure), rounds %v",
		len(got.count), len(cleanSeverities(t, name)), len(extra), got.rounds)
}

// TestLiveKilledMidRound kills the live monitor (SIGKILL) 10 s into
// round 1000 of the 1080p sample, after it took the round's game_start
// and wagers, and starts it again on the rest of the video (the camera
// kept filming), while the controller's later entries wait for it in the
// broker. A persistent QoS 1 subscriber counts what arrived against the
// clean run: round 1001, seen whole, has the clean run's alerts exactly;
// round 1000 is judged under the controller's id, not one the restarted
// monitor made up, with every entry: the game_start and wagers the killed
// monitor took come back from its journal, so no wager goes out
// unjudged. Each clean alert's seat and bet has an alert, for review,
// with a doubt naming the restart (the restarted monitor saw the round's
// cards only from the restart: a split made before it is not known);
// nothing arrives twice, no round without an id or seats, no alert
// without a round, no sure alert that is false. Once both rounds are
// published, the journal is empty.
//
// Killed after an early game_end (9.5 s, the dealer's hole card still
// face down), which the journal keeps too, the restarted monitor holds
// the round open as the killed one did, and judges it when the table is
// cleared, with its cards, rather than at once without them: the alerts
// are the same as above, plus the early game_end's procedure alert,
// raised once, before the kill.
func TestLiveKilledMidRound(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the live monitor over a video")
	}
	const table = "freebet-1080p"
	for _, tt := range []struct {
		name  string
		extra []map[string]any // controller events beyond the sample's
		want  []string         // alerts beyond the clean run's
	}{
		{"mid-round", nil, nil},
		{"after an early game_end",
			[]map[string]any{{"type": "game_end", "round": "1000", "t": 9.5, "seq": 1000}},
			[]string{table + ":1000:0::procedure:early_game_end"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			es := numbered(t, table)
			for _, e := range tt.extra {
				es = append(es, maps.Clone(e))
			}
			slices.SortStableFunc(es, func(a, b map[string]any) int { return cmp.Compare(a["t"].(float64), b["t"].(float64)) })
			killedMidRound(t, table, es, tt.want)
		})
	}
}

// killedMidRound is TestLiveKilledMidRound with the controller events es,
// in time order, and the alerts extra beyond the clean run's.
func killedMidRound(t *testing.T, table string, es []map[string]any, extra []string) {
	// The cut lies at a key frame of the sample (one every 10 s), so the
	// rest of the video is the same frames, copied. It falls after round
	// 1000's wagers; its 21+3 payouts, entered at 7.75 s, are moved just
	// past it (a payout may come any time before game_end), so that the
	// killed monitor took the game_start and wagers, and the restarted one
	// gets every payout and the game_end.
	const cut = 10.0
	began := time.Now()
	step := func(what string) { t.Logf("%5.1f s: %s", time.Since(began).Seconds(), what) }
	rest := filepath.Join(t.TempDir(), "rest.mp4")
	ff := exec.Command("ffmpeg", "-loglevel", "error", "-ss", fmt.Sprint(cut), "-i", abs(t, sample(table, "mp4")), "-c", "copy", "-an", rest)
	if out, err := ff.CombinedOutput(); err != nil {
		t.Fatalf("cutting the sample: %v\n%s", err, out)
	}

	step("sample cut")
	b := mqtttest.NewMosquitto(t, "persistence true\n")
	b.Start()
	watch := mqtttest.Subscribe(t, b.URL(), "officer", "bjmonitor/"+table+"/#", false)
	before, after := splitEvents(t, es, cut)
	queueController(t, b.URL(), table, before)

	env, metricsURL := liveEnv(t, abs(t, sample(table, "mp4")), b.URL())
	args := []string{"live", "--config", abs(t, sample(table, "yaml"))}
	cmd, out := monitorProcess(t, env, args...)
	waitMetric(t, metricsURL, 2*time.Minute, "round 1000 under way", func(m map[string]float64) bool {
		return m[`bjmonitor_controller_events_total{result="ok"}`] == float64(len(before)) && m["bjmonitor_frames_total"] >= cut*12.5
	})
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	step("killed")
	// The controller goes on; the broker keeps its entries for the
	// monitor's session.
	mqtttest.Publish(t, b.URL(), "bjmonitor/"+table+"/controller", after...)

	env2 := append(env, "MONITOR_LIVE_SOURCE="+rest)
	cmd2, out2 := monitorProcess(t, env2, args...)
	m := waitMetric(t, metricsURL, 5*time.Minute, "two rounds judged", func(m map[string]float64) bool {
		return m["bjmonitor_rounds_total"] >= 2
	})
	if n := m[`bjmonitor_controller_journal_total{result="replayed"}`]; n != float64(len(before)) {
		t.Errorf("%v events replayed from the journal, want the %d the killed monitor took", n, len(before))
	}
	step("both rounds judged")
	cmd2.Process.Signal(syscall.SIGTERM)
	if err := cmd2.Wait(); err != nil {
		t.Errorf("the monitor did not stop cleanly: %v\n%s", err, out2.String())
	}
	got := receive(t, watch.Messages(2*time.Second))
	clean := cleanSeverities(t, table)
	compare(t, got, clean, func(round string) bool { return round != "1000" }, extra)
	sort.Strings(got.rounds)
	if want := "1000 1001"; strings.Join(got.rounds, " ") != want {
		t.Errorf("rounds received %v, want %s", got.rounds, want)
	}
	same := 0
	for id, kind := range got.kind {
		if kind == "unjudged" {
			t.Errorf("alert %s: a wager went unjudged, though the journal kept every entry", id)
		}
		if strings.Contains(id, ":1000:") && got.severity[id] != "review" {
			t.Errorf("alert %s of the round the restart cut is %s, want review", id, got.severity[id])
		}
		if clean[id] != "" && strings.Contains(id, ":1000:") {
			same++
		}
	}
	if d := strings.Join(got.doubts["1000"], "; "); !strings.Contains(d, "restarted during this round") {
		t.Errorf("round 1000's doubts %q do not name the restart", d)
	}
	if b, err := os.ReadFile(filepath.Join(envValue(env, "MONITOR_MQTT_OUTBOX"), journalFile)); err != nil || len(b) != 0 {
		t.Errorf("the journal after both rounds were published: %q, %v; want it empty", b, err)
	}
	if t.Failed() {
		for id, sev := range got.severity {
			t.Logf("received %s (%s)", id, sev)
		}
		t.Logf("first run:\n%s\nafter the restart:\n%s", out.String(), out2.String())
	}
	clean1000 := 0
	for id := range clean {
		if strings.Contains(id, ":1000:") {
			clean1000++
		}
	}
	t.Logf("tried: SIGKILL %.0f s into the sample, in round 1000, restart on the rest of the video; received %d alerts, rounds %v; round 1000: %d of the clean run's %d alerts under the same id, all for review, none unjudged; beyond the clean run's: %v",
		cut, len(got.count), got.rounds, same, clean1000, extra)
}

// splitEvents splits controller events es, in time order, at cut
// seconds: those the killed monitor took, and those after it, timed from
// the cut. Payouts before the cut move just past it, in the same order (a
// payout may come any time before game_end).
func splitEvents(t *testing.T, es []map[string]any, cut float64) (before, after []string) {
	t.Helper()
	for _, e := range es {
		at := e["t"].(float64)
		if e["type"] == "payout" && at < cut {
			at = cut + at/100
		}
		if at < cut {
			before = append(before, encode(t, []map[string]any{e})[0])
			continue
		}
		e["t"] = at - cut // the restarted monitor's clock starts at the cut
		after = append(after, encode(t, []map[string]any{e})[0])
	}
	return before, after
}

// envValue is the value of key in an environment list.
func envValue(env []string, key string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}
