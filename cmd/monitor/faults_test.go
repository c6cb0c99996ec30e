package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"golang.org/x/crypto/bcrypt"

	"bjmonitor/internal/mqtttest"
)

// cleanAlerts are the alerts of the sample's clean run: the replay's
// golden file, which TestLiveMatchesReplay holds the live monitor to.
func cleanAlerts(t *testing.T, table string) map[string]map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "replay-"+table+".golden.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, r := range withoutEvidence(t, string(b)) {
		if r["type"] == "alert" {
			out[r["id"].(string)] = r
		}
	}
	return out
}

// TestLiveBrokerKilledMidRound kills Mosquitto (SIGKILL, no persistence)
// while the sample's first round is being dealt and starts it again. Two of
// that round's correct payouts, and its game_end, are lost with it (the
// controller sent them while the broker was down): round 1000 is judged
// once round 1001's first card is dealt, and round 1001's game_start,
// which came while round 1000 was open, is a procedure alert. A persistent subscriber's alerts are
// counted against the clean run: every clean alert arrives once, the
// first round's alerts (and the false "missed payout" ones the lost
// entries cause) are all for review, with a doubt naming the gap, and the
// second round, dealt after the monitor reconnected, is judged as in the
// clean run.
func TestLiveBrokerKilledMidRound(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the live monitor over a video")
	}
	const table = "freebet-1080p"
	clean := cleanAlerts(t, table)
	b := mqtttest.NewMosquitto(t, "")
	b.Start()
	var events []string
	lost := map[string]bool{`"seat":2,"bet":"blazing7s","amount":200`: true, `"seat":2,"bet":"push22","amount":110`: true}
	for _, e := range controllerLog(t, table) {
		if !lostEvent(e, lost) && !strings.Contains(e, `"type":"game_end","round":"1000"`) {
			events = append(events, e)
		}
	}
	if len(events) != 42 {
		t.Fatalf("%d events after dropping the lost payouts and game_end, want 42", len(events))
	}
	queueController(t, b.URL(), table, events)
	watch := mqtttest.Subscribe(t, b.URL(), "officer", "bjmonitor/"+table+"/#", false)

	env, metricsURL := liveEnv(t, abs(t, sample(table, "mp4")), b.URL())
	setenv(t, env)
	var stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := runAsync(ctx, io.Discard, &stderr, "live", "--config", abs(t, sample(table, "yaml")))

	// Round 1000 opens at frame 25 (1 s); 20 frames read is frame 40.
	waitMetric(t, metricsURL, time.Minute, "the events and round 1000 under way", func(m map[string]float64) bool {
		return m[`bjmonitor_controller_events_total{result="ok"}`] == 42 && m["bjmonitor_frames_total"] >= 20
	})
	reconnect, frames := killAndRestart(t, b, metricsURL, table, &stderr)
	// Round 1001 starts at 24.5 s, frame 612: about 306 frames read.
	secondClean := frames < 290

	// The clean run's alerts, the lost payouts' two, and the game_start
	// of round 1001 inside round 1000.
	inside := table + ":1000:0::procedure:game_start_in_open_round"
	got, rounds, dups := collectResults(t, watch, done, &stderr, func(got, rounds map[string]map[string]any) bool {
		return rounds["1001"] != nil && len(got) >= len(clean)+3
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("live: %v\n%s", err, stderr.String())
	}
	sureFalse := checkGapRun(t, clean, got, rounds, secondClean)
	doubts, _ := json.Marshal(rounds["1000"]["doubts"])
	if got[inside] == nil || !strings.Contains(string(doubts), "game_end never came") {
		t.Errorf("round 1000's lost game_end: alert %s %v, doubts %s", inside, got[inside], doubts)
	}
	if dups != 0 {
		t.Errorf("%d alerts arrived twice", dups)
	}
	if reconnect > 3*time.Second { // about 1 s, and room for a loaded machine
		t.Errorf("reconnected %v after the broker came back, want about 1 s at most", reconnect)
	}
	// The log level is warn: the disconnection, and the session the
	// broker forgot, are warnings. A broker killed while the socket has
	// data unread closes it with a reset, not an EOF, and the warning
	// then says only that the connection was lost.
	closed := strings.Contains(stderr.String(), "the broker closed the connection") || strings.Contains(stderr.String(), "lost the broker connection")
	if !closed || !strings.Contains(stderr.String(), "forgotten the monitor's session") {
		t.Errorf("log lacks the disconnection or the forgotten session:\n%s", stderr.String())
	}
	t.Logf("tried: Mosquitto SIGKILLed in round 1000 (no persistence), 2 payouts and the game_end lost; survived: reconnected in %v, %d alerts (clean run %d), %d twice, %d sure false, round 1000 doubts %s; round 1001 compared with the clean run: %v",
		reconnect.Round(time.Millisecond), len(got), len(clean), dups, sureFalse, doubts, secondClean)
}

// killAndRestart kills the broker (SIGKILL), starts it again at once, and
// waits until the monitor has reconnected and subscribed again (a probe of
// unknown type is counted). It returns how long the reconnection took
// after the broker listened again, and the frames read by then.
func killAndRestart(t *testing.T, b *mqtttest.Mosquitto, metricsURL, table string, stderr *syncBuffer) (time.Duration, float64) {
	t.Helper()
	b.Kill()
	waitMetric(t, metricsURL, 10*time.Second, "the monitor to see the broker gone", func(m map[string]float64) bool {
		return m["bjmonitor_broker_connected"] == 0
	})
	b.Start()
	back := time.Now()
	m := waitMetric(t, metricsURL, 10*time.Second, "the monitor to reconnect", func(m map[string]float64) bool {
		return m["bjmonitor_broker_connected"] == 1
	})
	reconnect := time.Since(back)
	deadline := time.Now().Add(10 * time.Second)
	for scrape(metricsURL)[`bjmonitor_controller_events_total{result="unknown_type"}`] == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the monitor did not subscribe again after the broker's restart\n%s", stderr.String())
		}
		mqtttest.Publish(t, b.URL(), "bjmonitor/"+table+"/controller", `{"type":"probe"}`)
		time.Sleep(100 * time.Millisecond)
	}
	return reconnect, m["bjmonitor_frames_total"]
}

// collectResults reads the alerts (by id) and rounds (by round id) a
// subscriber receives until enough says so, counting alerts that arrive
// twice.
func collectResults(t *testing.T, watch *mqtttest.Subscriber, done <-chan error, stderr *syncBuffer, enough func(alerts, rounds map[string]map[string]any) bool) (alerts, rounds map[string]map[string]any, dups int) {
	t.Helper()
	alerts, rounds = map[string]map[string]any{}, map[string]map[string]any{}
	timeout := time.After(5 * time.Minute)
	for !enough(alerts, rounds) {
		select {
		case msg := <-watch.C():
			var r map[string]any
			if json.Unmarshal([]byte(msg.Payload), &r) != nil {
				continue // available
			}
			switch r["type"] {
			case "alert":
				if alerts[r["id"].(string)] != nil {
					dups++
				}
				alerts[r["id"].(string)] = r
			case "round":
				rounds[r["round"].(string)] = r
			}
		case err := <-done:
			t.Fatalf("the monitor stopped: %v\n%s", err, stderr.String())
		case <-timeout:
			t.Fatalf("after 5 min: %d alerts, %d rounds\n%s", len(alerts), len(rounds), stderr.String())
		}
	}
	return alerts, rounds, dups
}

// checkGapRun holds the alerts of a run whose round 1000 lived through a
// broker gap to the clean run's: none lost; round 1000's all for review,
// with a doubt naming the gap; round 1001's as clean (when it was dealt
// after the gap); no alert outside the clean run sure of itself. It
// returns how many were.
func checkGapRun(t *testing.T, clean, got, rounds map[string]map[string]any, secondClean bool) (sureFalse int) {
	t.Helper()
	for id := range clean {
		if got[id] == nil {
			t.Errorf("clean alert %s lost", id)
		}
	}
	for id, a := range got {
		c := clean[id]
		switch {
		case a["round"] == "1000" && a["severity"] != "review":
			t.Errorf("alert %s of the round the gap cut is %v, want review", id, a["severity"])
		case a["round"] == "1001" && secondClean && (c == nil || a["severity"] != c["severity"] || a["entered"] != c["entered"]):
			t.Errorf("alert %s of the round after the gap = %v, want the clean run's %v", id, a, c)
		}
		if c == nil && a["severity"] != "review" {
			sureFalse++
			t.Errorf("false alert %s is sure of itself: %v", id, a)
		}
	}
	if d, _ := json.Marshal(rounds["1000"]["doubts"]); !strings.Contains(string(d), "not connected to the broker") {
		t.Errorf("round 1000's doubts %s do not name the gap", d)
	}
	if d, _ := json.Marshal(rounds["1001"]["doubts"]); secondClean && strings.Contains(string(d), "broker") {
		t.Errorf("round 1001, dealt after the gap, doubts %s", d)
	}
	return sureFalse
}

// lostEvent reports whether a controller event is one of the lost ones,
// named by their seat, bet and amount.
func lostEvent(e string, lost map[string]bool) bool {
	for k := range lost {
		if strings.Contains(e, k) && strings.Contains(e, `"type":"payout"`) {
			return true
		}
	}
	return false
}

// TestControllerPayloadLimit: a controller message of 64 KiB is read; one
// byte more is refused and counted.
func TestControllerPayloadLimit(t *testing.T) {
	l := &live{log: slog.New(slog.NewTextHandler(io.Discard, nil)), met: newMetrics(gauges{})}
	event := `{"type":"meter","bet":"blazing7s","amount":1000}`
	cases := []struct {
		size int
		want string
	}{
		{len(event), "ok"},
		{64 << 10, "ok"},
		{64<<10 + 1, "too_large"},
		{10 << 20, "too_large"},
	}
	for _, tc := range cases {
		payload := []byte(event + strings.Repeat(" ", tc.size-len(event)))
		before := testutil.ToFloat64(l.met.controller.WithLabelValues(tc.want))
		_, passed := l.parseController(payload, false)
		if got := testutil.ToFloat64(l.met.controller.WithLabelValues(tc.want)) - before; got != 1 {
			t.Errorf("a %d-byte message counted %v times as %s, want once", tc.size, got, tc.want)
		}
		if passed != (tc.want == "ok") {
			t.Errorf("a %d-byte message passed: %v", tc.size, passed)
		}
	}
}

// TestLiveEmbeddedBrokerUsers runs live with an embedded broker that has
// users: the monitor logs in by itself, a console with its password sees
// the table online, an anonymous client is refused, and a controller's
// event is taken while a console's forged one is not.
func TestLiveEmbeddedBrokerUsers(t *testing.T) {
	port := mqtttest.FreePort(t)
	env, metricsURL := liveEnv(t, filepath.Join(t.TempDir(), "no-camera.mp4"), "")
	setenv(t, env)
	t.Setenv("MONITOR_TABLE_CALIBRATION", abs(t, sample("freebet-1080p", "table.json")))
	t.Setenv("MONITOR_MQTT_EMBEDDED_ADDR", fmt.Sprintf("127.0.0.1:%d", port))
	hash := func(pw string) string {
		h, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		return string(h)
	}
	config := writeConfig(t, fmt.Sprintf("table:\n  id: freebet-1080p\nmqtt:\n  embedded_users:\n"+
		"    - {name: ctl, role: controller, password_hash: %q}\n"+
		"    - {name: officer, role: console, password_hash: %q}\n", hash("ctl-pw"), hash("officer-pw")))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncBuffer
	done := runAsync(ctx, io.Discard, &stderr, "live", "--config", config)
	url := fmt.Sprintf("tcp://127.0.0.1:%d", port)
	deadline := time.Now().Add(20 * time.Second)
	for !mqtttest.Reachable(url) {
		if time.Now().After(deadline) {
			t.Fatalf("the embedded broker did not listen within 20 s\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	login := func(user, pw string) (mqtt.Client, error) {
		c := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(url).SetClientID(fmt.Sprintf("%s-%d", user, time.Now().UnixNano())).
			SetUsername(user).SetPassword(pw).SetAutoReconnect(false).SetProtocolVersion(4))
		tok := c.Connect()
		if !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
			return nil, fmt.Errorf("connect as %q: %v", user, tok.Error())
		}
		t.Cleanup(func() { c.Disconnect(0) })
		return c, nil
	}
	if _, err := login("", ""); err == nil {
		t.Error("an anonymous client got in")
	}
	officer, err := login("officer", "officer-pw")
	if err != nil {
		t.Fatal(err)
	}
	available := make(chan string, 10)
	officer.Subscribe("bjmonitor/freebet-1080p/available", 1, func(_ mqtt.Client, m mqtt.Message) { available <- string(m.Payload()) }).WaitTimeout(5 * time.Second)
	select {
	case a := <-available:
		if a != "online" {
			t.Errorf("table %q, want online", a)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the monitor did not mark its table online on its own broker\n%s", stderr.String())
	}
	ctl, err := login("ctl", "ctl-pw")
	if err != nil {
		t.Fatal(err)
	}
	ctl.Publish("bjmonitor/freebet-1080p/controller", 1, false, `{"type":"probe-from-controller"}`).WaitTimeout(5 * time.Second)
	officer.Publish("bjmonitor/freebet-1080p/controller", 1, false, `{"type":"probe-from-console"}`).WaitTimeout(5 * time.Second)
	m := waitMetric(t, metricsURL, 10*time.Second, "the controller's event", func(m map[string]float64) bool {
		return m[`bjmonitor_controller_events_total{result="unknown_type"}`] >= 1
	})
	time.Sleep(500 * time.Millisecond)
	if n := scrape(metricsURL)[`bjmonitor_controller_events_total{result="unknown_type"}`]; n != 1 {
		t.Errorf("%v controller messages taken, want the controller's 1 (not the console's)", n)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("live: %v\n%s", err, stderr.String())
	}
	t.Logf("tried: embedded broker with a controller and a console; survived: anonymous refused, the monitor logged in itself, %v controller message taken, the console's forged one refused", m[`bjmonitor_controller_events_total{result="unknown_type"}`])
}

// TestEmbeddedUsersConfig: the embedded broker's users are checked as the
// configuration loads, and each error names its key.
func TestEmbeddedUsersConfig(t *testing.T) {
	good, err := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, yaml, field string
	}{
		{"plain password", "mqtt:\n  embedded_users:\n    - {name: a, role: console, password_hash: secret}\n", "mqtt.embedded_users[0].password_hash"},
		{"unknown role", fmt.Sprintf("mqtt:\n  embedded_users:\n    - {name: a, role: console, password_hash: %q}\n    - {name: b, role: admin, password_hash: %q}\n", good, good), "mqtt.embedded_users[1].role"},
		{"no name", fmt.Sprintf("mqtt:\n  embedded_users:\n    - {role: console, password_hash: %q}\n", good), "mqtt.embedded_users[0].name"},
		{"the network without users", "mqtt:\n  embedded_addr: 0.0.0.0:1883\n", "mqtt.embedded_addr"},
		{"a LAN address without users", "mqtt:\n  embedded_addr: 192.168.1.20:1883\n", "mqtt.embedded_addr"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadConfig(writeConfig(t, tc.yaml), nil, nil)
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != tc.field {
				t.Errorf("loadConfig = %v, want a ConfigError on %s", err, tc.field)
			}
		})
	}
	c, err := loadConfig(writeConfig(t, fmt.Sprintf("mqtt:\n  embedded_addr: 0.0.0.0:1883\n  embedded_users:\n    - {name: officer, role: console, password_hash: %q}\n", good)), nil, nil)
	if err != nil {
		t.Fatalf("the network with users: %v", err)
	}
	if bc := embeddedConfig(c); len(bc.Users) != 1 || bc.Users[0].Name != "officer" || bc.Table != c.Table.ID || bc.TopicPrefix != "bjmonitor" {
		t.Errorf("embeddedConfig = %+v", bc)
	}
}

// TestLiveFullDisk puts the outbox and the --out file on a 64 KiB tmpfs
// and fills it while rounds are judged (played with the camera away, each
// raising one alert from the controller's entries alone): three with the
// broker up, then two judged while it is down. Then the disk is freed and
// the broker comes back. Every alert reaches a subscriber once,
// alerts_total counts only what the broker took, and --out ends up with
// every record once.
func TestLiveFullDisk(t *testing.T) {
	disk := tinyTmpfs(t)
	b := mqtttest.NewMosquitto(t, "persistence true\n")
	b.Start()
	const table = "freebet-1080p"
	watch := mqtttest.Subscribe(t, b.URL(), "officer", "bjmonitor/"+table+"/alert", false)
	camera := filepath.Join(t.TempDir(), "camera.mp4")
	cut := exec.Command("ffmpeg", "-v", "error", "-y", "-i", sample(table, "mp4"), "-t", "1", "-c:v", "libx264", "-preset", "ultrafast", camera)
	if msg, err := cut.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, msg)
	}
	env, metricsURL := liveEnv(t, camera, b.URL())
	setenv(t, env)
	t.Setenv("MONITOR_MQTT_OUTBOX", filepath.Join(disk, "outbox"))
	out := filepath.Join(disk, "results.jsonl")
	var stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := runAsync(ctx, io.Discard, &stderr, "live", "--config", abs(t, sample(table, "yaml")), "--out", out)
	waitMetric(t, metricsURL, time.Minute, "frames from the camera", func(m map[string]float64) bool { return m["bjmonitor_frames_total"] >= 5 })
	if err := os.Rename(camera, camera+".gone"); err != nil { // rounds are judged on the entries alone
		t.Fatal(err)
	}
	waitMetric(t, metricsURL, time.Minute, "the camera gone", func(m map[string]float64) bool { return m["bjmonitor_capture_connected"] == 0 })
	filler := fillDisk(t, disk)

	// The broker up: the alerts go out from memory.
	for _, id := range []string{"d1", "d2", "d3"} {
		darkRound(t, b.URL(), table, id, time.Time{})
	}
	got, _, dups := collectResults(t, watch, done, &stderr, func(a, _ map[string]map[string]any) bool { return len(a) == 3 })
	m := waitMetric(t, metricsURL, 10*time.Second, "3 alerts counted as sent", func(m map[string]float64) bool {
		return sum(m, "bjmonitor_alerts_total") == 3
	})
	if m[`bjmonitor_unwritten_records{file="out"}`] == 0 {
		t.Errorf("nothing waits under --out on a full disk: %v", m)
	}
	// The broker down: two rounds end (2 s after their entries arrive, as
	// far as the monitor trusts the controller's clock) with nowhere to go.
	at := time.Now().Add(time.Minute)
	darkRound(t, b.URL(), table, "d4", at)
	darkRound(t, b.URL(), table, "d5", at)
	waitMetric(t, metricsURL, 2*time.Second, "the entries delivered", func(m map[string]float64) bool {
		return m[`bjmonitor_controller_events_total{result="ok"}`] == 20
	})
	b.Stop()
	m = waitMetric(t, metricsURL, 20*time.Second, "two rounds' records waiting in memory", func(m map[string]float64) bool {
		// Judged without cards (the camera is away), a round has no round
		// record: its one alert is what waits.
		return m["bjmonitor_outbox_depth"] >= 2 &&
			m[`bjmonitor_unwritten_records{file="outbox"}`] == m["bjmonitor_outbox_depth"]
	})
	if a := sum(m, "bjmonitor_alerts_total"); a != 3 {
		t.Errorf("alerts_total %v with 2 alerts unsent, want 3", a)
	}
	os.Remove(filler)
	waitMetric(t, metricsURL, 10*time.Second, "everything written once the disk is freed", func(m map[string]float64) bool {
		return m[`bjmonitor_unwritten_records{file="outbox"}`] == 0 && m[`bjmonitor_unwritten_records{file="out"}`] == 0
	})
	b.Start()
	more, _, dups2 := collectResults(t, watch, done, &stderr, func(a, _ map[string]map[string]any) bool { return len(a) == 2 })
	waitMetric(t, metricsURL, 10*time.Second, "5 alerts counted as sent", func(m map[string]float64) bool {
		return sum(m, "bjmonitor_alerts_total") == 5
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("live: %v\n%s", err, stderr.String())
	}
	for id := range more {
		got[id] = more[id]
	}
	if len(got) != 5 || dups+dups2 != 0 {
		t.Errorf("%d distinct alerts, %d twice; want 5 once each", len(got), dups+dups2)
	}
	lines := countRecords(t, out)
	if lines["alert"] != 5 || lines["dup"] != 0 {
		t.Errorf("--out holds %v, want 5 alerts, none twice", lines)
	}
	if !strings.Contains(stderr.String(), "the disk refused a record") {
		t.Errorf("the full disk is not logged:\n%s", stderr.String())
	}
	t.Logf("tried: a 64 KiB tmpfs filled under the outbox and --out, 3 rounds with the broker up, 2 with it down, then freed; survived: %d alerts once each, --out %v", len(got), lines)
}

// tinyTmpfs mounts a 64 KiB tmpfs for the test, or skips it where it may
// not mount one.
func tinyTmpfs(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}

// fillDisk fills the file system under dir; removing the returned file
// frees it.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for {
		if _, err := f.Write(make([]byte, 512)); err != nil {
			return p
		}
	}
}

// darkRound sends the controller's entries for a round played with the
// camera away: a 21+3 wager paid 45 on cards never seen, one unjudged
// alert. With at set, the entries carry that time (ts).
func darkRound(t *testing.T, url, table, id string, at time.Time) {
	t.Helper()
	ts := ""
	if !at.IsZero() {
		ts = `,"ts":"` + at.UTC().Format(time.RFC3339Nano) + `"`
	}
	mqtttest.Publish(t, url, "bjmonitor/"+table+"/controller",
		`{"type":"game_start","round":"`+id+`"`+ts+`}`, `{"type":"wager","round":"`+id+`","seat":3,"bet":"21+3","amount":5`+ts+`}`,
		`{"type":"payout","round":"`+id+`","seat":3,"bet":"21+3","amount":45`+ts+`}`, `{"type":"game_end","round":"`+id+`"`+ts+`}`)
}

// countRecords counts a JSONL results file's records by type, and those
// that appear twice under "dup".
func countRecords(t *testing.T, path string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, seen := map[string]int{}, map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct{ Type string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("--out line %q: %v", line, err)
		}
		n[r.Type]++
		if seen[line] {
			n["dup"]++
		}
		seen[line] = true
	}
	return n
}
