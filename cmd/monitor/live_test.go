package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"bjmonitor/internal/mqtttest"
	"bjmonitor/internal/pgtest"
	"bjmonitor/publish"
	"bjmonitor/publish/testcert"
)

// TestMain lets the test binary stand in for the monitor, so that the
// reliability tests can run it as a process of its own and kill it.
func TestMain(m *testing.M) {
	if os.Getenv("BJMONITOR_TEST_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	code := m.Run()
	pgtest.Stop() // the console's tests on PostgreSQL
	os.Exit(code)
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader on two
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// useBundledModels points the monitor run by the test at the repository's
// card models (models/cardindex, models/pipsuit), by absolute path.
func useBundledModels(t *testing.T) {
	t.Helper()
	models := filepath.Join("..", "..", "models", "cardindex")
	t.Setenv("MONITOR_VISION_MODEL", abs(t, filepath.Join(models, "cardindex.onnx")))
	t.Setenv("MONITOR_VISION_FAST_MODEL", abs(t, filepath.Join(models, "cardindex-fast.onnx")))
	t.Setenv("MONITOR_VISION_FEATURES_MODEL", abs(t, filepath.Join(models, "cardindex-features.onnx")))
	t.Setenv("MONITOR_VISION_SUITS_MODEL", abs(t, bundledSuitsModel))
}

// bundledSuitsModel is the repository's pip suit model, relative to this
// package.
var bundledSuitsModel = filepath.Join("..", "..", "models", "pipsuit", "pipsuit.onnx")

// abs returns the absolute path of a path relative to this package.
func abs(tb testing.TB, p string) string {
	tb.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

// liveEnv configures a live monitor through MONITOR_* variables (the
// sample's YAML says the table): its source read as fast as it goes, the
// broker, a fresh state folder, and a metrics port. It returns the
// variables and the metrics URL.
func liveEnv(tb testing.TB, source, broker string) (env []string, metricsURL string) {
	tb.Helper()
	state := tb.TempDir()
	port := mqtttest.FreePort(tb)
	env = []string{
		"MONITOR_LIVE_SOURCE=" + source,
		"MONITOR_LIVE_REALTIME=false",
		"MONITOR_LIVE_STATS_INTERVAL=1s",
		"MONITOR_MQTT_BROKER=" + broker,
		"MONITOR_MQTT_OUTBOX=" + filepath.Join(state, "outbox"),
		"MONITOR_EVIDENCE_DIR=" + filepath.Join(state, "evidence"),
		"MONITOR_METRICS_ADDR=127.0.0.1:" + strconv.Itoa(port),
		"MONITOR_VISION_MODEL=" + abs(tb, filepath.Join("..", "..", "models", "cardindex", "cardindex.onnx")),
		"MONITOR_VISION_FAST_MODEL=" + abs(tb, filepath.Join("..", "..", "models", "cardindex", "cardindex-fast.onnx")),
		"MONITOR_VISION_SUITS_MODEL=" + abs(tb, bundledSuitsModel),
		"MONITOR_LOG_LEVEL=warn",
	}
	return env, fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
}

func setenv(t *testing.T, env []string) {
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// scrape reads the monitor's Prometheus metrics: series → value. A monitor
// not serving yet gives nil.
func scrape(url string) map[string]float64 {
	resp, err := http.Get(url)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err == nil {
			out[line[:i]] = v
		}
	}
	return out
}

// sum adds the series of a metric, whatever their labels.
func sum(m map[string]float64, name string) float64 {
	s := 0.0
	for k, v := range m {
		if k == name || strings.HasPrefix(k, name+"{") {
			s += v
		}
	}
	return s
}

// waitMetric waits until cond holds on the scraped metrics.
func waitMetric(t *testing.T, url string, d time.Duration, what string, cond func(map[string]float64) bool) map[string]float64 {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		m := scrape(url)
		if m != nil && cond(m) {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s; metrics: %v", d, what, m)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// queueController makes the broker hold a session for the monitor's client
// id with its controller subscription, and queues payloads in it, as a
// table controller does while the monitor is starting.
func queueController(t *testing.T, url, table string, payloads []string) {
	t.Helper()
	c := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(url).SetClientID("bjmonitor-" + table).SetCleanSession(false))
	if tok := c.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	topic := "bjmonitor/" + table + "/controller"
	if tok := c.Subscribe(topic, 1, nil); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	c.Disconnect(100)
	mqtttest.Publish(t, url, topic, payloads...)
}

// controllerLog returns the sample's controller events, one per line.
func controllerLog(t testing.TB, name string) []string {
	t.Helper()
	b, err := os.ReadFile(sample(name, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

// withoutEvidence decodes JSONL records, dropping the evidence paths, which
// only a live monitor writes.
func withoutEvidence(t *testing.T, jsonl string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(jsonl), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %.200s", err, line)
		}
		delete(m, "snapshot")
		delete(m, "clip")
		out = append(out, m)
	}
	return out
}

// TestLiveMatchesReplay runs the live monitor on the bundled 1080p sample
// read as a file (then replays it for comparison), with the controller's events (and some garbage) coming
// over a real Mosquitto. Its results must be the replay's, record for
// record; every alert must reach a subscriber with its evidence on disk;
// malformed controller messages are counted and skipped; the table is
// marked online, then stopped.
func TestLiveMatchesReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the live monitor over a video")
	}
	b := mqtttest.NewMosquitto(t, "")
	b.Start()
	const table = "freebet-1080p"
	garbage := []string{"not json", `{"type":"payout","seat":"two"}`, `{"type":"wager","round":"1000","seat":2,"bet":"21+3","amount":"five","t":2}`, `{"type":"shoe_change","t":3}`, `{"type":"dealer_change"}`}
	queueController(t, b.URL(), table, append(garbage, controllerLog(t, table)...))
	watch := mqtttest.Subscribe(t, b.URL(), "officer", "bjmonitor/"+table+"/#", true)

	env, metricsURL := liveEnv(t, abs(t, sample(table, "mp4")), b.URL())
	setenv(t, env)
	out := filepath.Join(t.TempDir(), "live.jsonl")
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := runAsync(ctx, &stdout, &stderr, "live", "--config", abs(t, sample(table, "yaml")), "--out", out)

	alerts := map[string]map[string]any{}
	var rounds, stats, evidence int
	available := []string{}
	timeout := time.After(5 * time.Minute)
	// Each alert's snapshot and clip follow it on the evidence topic (a
	// clip once written, seconds later).
	for rounds < 2 || len(alerts) < 10 || evidence < 2*len(alerts) {
		select {
		case m := <-watch.C():
			switch kind := m.Topic[strings.LastIndexByte(m.Topic, '/')+1:]; kind {
			case "alert":
				var a map[string]any
				if err := json.Unmarshal([]byte(m.Payload), &a); err != nil {
					t.Fatalf("alert payload: %v", err)
				}
				alerts[a["id"].(string)] = a
			case "round":
				rounds++
			case "stats":
				stats++
			case "available":
				available = append(available, m.Payload)
			case "evidence":
				evidence++
			}
		case err := <-done:
			t.Fatalf("the monitor stopped: %v\n%s", err, stderr.String())
		case <-timeout:
			t.Fatalf("after 5 min: %d rounds, %d alerts, %d evidence files\n%s", rounds, len(alerts), evidence, stderr.String())
		}
	}
	// Alerts are counted as the broker acknowledges them, which may come
	// a moment after the subscriber has them.
	met := waitMetric(t, metricsURL, 10*time.Second, "the 10 alerts counted as sent", func(m map[string]float64) bool {
		return sum(m, "bjmonitor_alerts_total") == 10
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("live: %v\n%s", err, stderr.String())
	}
	for _, m := range watch.Messages(time.Second) {
		if strings.HasSuffix(m.Topic, "/available") {
			available = append(available, m.Payload)
		}
	}

	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, _, stderrReplay, err := replaySample(t, table, sample(table, "events.jsonl"), sample(table, "mp4"))
	if err != nil {
		t.Fatalf("replay: %v\n%s", err, stderrReplay)
	}
	g, w := withoutEvidence(t, string(got)), withoutEvidence(t, want)
	if len(g) < len(w) || !reflect.DeepEqual(g[:len(w)], w) {
		t.Errorf("live results differ from the replay's (%d records, want %d):\n%s", len(g), len(w), got)
	}
	for id, a := range alerts {
		for _, key := range []string{"snapshot", "clip"} {
			p, _ := a[key].(string)
			if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
				t.Errorf("alert %s: %s %q: %v", id, key, p, err)
			}
		}
	}
	checkSampleMetrics(t, met)
	if len(available) == 0 || available[0] != "online" || available[len(available)-1] != "stopped" {
		t.Errorf("available went %v; want online … stopped", available)
	}
	if stats == 0 {
		t.Error("no stats message")
	}
	t.Logf("tried: the sample over MQTT with 5 bad controller messages; survived: %d alerts with evidence (%d files on the evidence topic), %d rounds, results equal to the replay's, availability %v, %d stats messages, %v frames",
		len(alerts), evidence, rounds, available, stats, met["bjmonitor_frames_total"])
}

// TestReplayPublishSurvivesBrokerOutage publishes a replay's results while
// the broker goes away after the first alert and comes back once every
// alert has been raised. After de-duplication by id, every alert arrives
// exactly once.
func TestReplayPublishSurvivesBrokerOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("replays video")
	}
	b := mqtttest.NewMosquitto(t, "persistence true\n")
	b.Start()
	const name = "freebet-1080p"
	watch := mqtttest.Subscribe(t, b.URL(), "officer", "bjmonitor-replay/"+name+"/alert", false)
	state := t.TempDir()
	t.Setenv("MONITOR_MQTT_OUTBOX", filepath.Join(state, "outbox"))
	out := filepath.Join(state, "results.jsonl")
	args := []string{"replay", abs(t, sample(name, "mp4")), "--events", abs(t, sample(name, "events.jsonl")),
		"--config", abs(t, sample(name, "yaml")), "--out", out, "--publish", "--broker", b.URL(), "--publish-wait", "60s"}
	var stdout, stderr syncBuffer
	wd, _ := os.Getwd()
	if err := os.Chdir(filepath.Join("..", "..")); err != nil { // the model's path is the repository's
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	done := runAsync(context.Background(), &stdout, &stderr, args...)

	var before []string
	select {
	case m := <-watch.C():
		before = append(before, m.Payload)
	case err := <-done:
		t.Fatalf("replay ended before any alert arrived: %v\n%s", err, stderr.String())
	case <-time.After(5 * time.Minute):
		t.Fatal("no alert within 5 min")
	}
	b.Stop()
	// Every alert is raised while the broker is away.
	deadline := time.Now().Add(5 * time.Minute)
	for strings.Count(stdout.String(), "ALERT") < 10 {
		if time.Now().After(deadline) {
			t.Fatalf("the replay raised %d alerts in 5 min", strings.Count(stdout.String(), "ALERT"))
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Second)
	b.Start()
	if err := <-done; err != nil {
		t.Fatalf("replay: %v\n%s", err, stderr.String())
	}
	msgs := watch.Messages(2 * time.Second)
	ids := map[string]int{}
	for _, p := range append(before, payloads(msgs)...) {
		ids[alertID(t, p)]++
	}
	results, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, line := range strings.Split(string(results), "\n") {
		if strings.HasPrefix(line, `{"type":"alert"`) {
			want[alertID(t, line)] = true
		}
	}
	for id := range want {
		if ids[id] == 0 {
			t.Errorf("alert %s never arrived", id)
		}
	}
	for id := range ids {
		if !want[id] {
			t.Errorf("alert %s arrived but the replay did not raise it", id)
		}
	}
	if len(want) != 10 {
		t.Errorf("the replay raised %d alerts, want 10", len(want))
	}
	if _, err := os.Stat(filepath.Join(state, "outbox")); err == nil {
		if left, _ := os.ReadDir(filepath.Join(state, "outbox")); len(left) != 0 {
			t.Errorf("the replay left its outbox behind: %v", left)
		}
	}
	t.Logf("tried: broker stopped after the first alert, restarted once all %d were raised; survived: %d messages, %d distinct alerts, all %d raised ones present",
		len(want), len(before)+len(msgs), len(ids), len(want))
}

// checkSampleMetrics checks the metrics of the sample's live run, with
// its 3 malformed controller messages and 2 of unknown type.
func checkSampleMetrics(t *testing.T, met map[string]float64) {
	t.Helper()
	if c := met[`bjmonitor_controller_events_total{result="malformed"}`]; c != 3 {
		t.Errorf("malformed controller messages counted: %v, want 3", c)
	}
	if c := met[`bjmonitor_controller_events_total{result="unknown_type"}`]; c != 2 {
		t.Errorf("controller messages of unknown type counted: %v, want 2", c)
	}
	if a := sum(met, "bjmonitor_alerts_total"); a != 10 {
		t.Errorf("alerts_total %v, want 10", a)
	}
	// No event was sent twice.
	if c, ok := met[`bjmonitor_controller_events_total{result="repeated"}`]; !ok || c != 0 {
		t.Errorf("repeated controller events: %v (exported: %v), want 0", c, ok)
	}
	if z, c := met["bjmonitor_zones_read_total"], met["bjmonitor_crops_read_total"]; z == 0 || c == 0 {
		t.Errorf("zones read %v, crops read %v: want some of each", z, c)
	}
}

func payloads(ms []mqtttest.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Payload
	}
	return out
}

func alertID(t *testing.T, payload string) string {
	t.Helper()
	var a struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(payload), &a); err != nil || a.ID == "" {
		t.Fatalf("alert without an id: %.200s (%v)", payload, err)
	}
	return a.ID
}

// monitorProcess runs the test binary as the monitor, in a process of its
// own.
func monitorProcess(t *testing.T, env []string, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "BJMONITOR_TEST_MAIN=1"), env...)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, &out
}

// TestLiveRestartDeliversOutbox kills the monitor (SIGKILL) while its
// alerts wait in the outbox for a broker that is down, then starts it again
// with the camera unplugged: the alerts are delivered once the broker is
// back.
func TestLiveRestartDeliversOutbox(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the live monitor over a video")
	}
	b := mqtttest.NewMosquitto(t, "persistence true\n")
	b.Start()
	const table = "freebet-1080p"
	queueController(t, b.URL(), table, controllerLog(t, table))
	watch := mqtttest.Subscribe(t, b.URL(), "officer", "bjmonitor/"+table+"/alert", false)

	env, metricsURL := liveEnv(t, abs(t, sample(table, "mp4")), b.URL())
	args := []string{"live", "--config", abs(t, sample(table, "yaml"))}
	cmd, out := monitorProcess(t, env, args...)
	waitMetric(t, metricsURL, time.Minute, "the controller's 45 events", func(m map[string]float64) bool {
		return m[`bjmonitor_controller_events_total{result="ok"}`] == 45
	})
	b.Stop()
	m := waitMetric(t, metricsURL, 5*time.Minute, "both rounds judged", func(m map[string]float64) bool {
		return m["bjmonitor_rounds_total"] == 2
	})
	depth := m["bjmonitor_outbox_depth"]
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if depth < 10 {
		t.Fatalf("only %v records waited in the outbox when the monitor was killed\n%s", depth, out.String())
	}

	b.Start()
	// The camera is gone: the monitor starts anyway, and sends what waits.
	env2 := append(env, "MONITOR_LIVE_SOURCE="+filepath.Join(t.TempDir(), "unplugged.mp4"))
	cmd2, out2 := monitorProcess(t, env2, args...)
	ids := map[string]bool{}
	timeout := time.After(time.Minute)
	for len(ids) < 10 {
		select {
		case m := <-watch.C():
			ids[alertID(t, m.Payload)] = true
		case <-timeout:
			t.Fatalf("after the restart %d of 10 alerts arrived\n%s", len(ids), out2.String())
		}
	}
	cmd2.Process.Signal(syscall.SIGTERM)
	if err := cmd2.Wait(); err != nil {
		t.Errorf("the monitor did not stop cleanly on SIGTERM: %v\n%s", err, out2.String())
	}
	t.Logf("tried: SIGKILL with %v records in the outbox and the broker down, restart without a camera; survived: %d of 10 alerts delivered", depth, len(ids))
}

// TestLiveCameraComesBack starts the monitor before its camera exists,
// lets the camera appear, vanish and come back: the monitor keeps running
// and reads frames again each time.
func TestLiveCameraComesBack(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the live monitor over a video")
	}
	b := mqtttest.NewMosquitto(t, "")
	b.Start()
	dir := t.TempDir()
	short := filepath.Join(dir, "short.mp4")
	cut := exec.Command("ffmpeg", "-v", "error", "-y", "-i", sample("freebet-1080p", "mp4"), "-t", "2", "-c:v", "libx264", "-preset", "ultrafast", short)
	if msg, err := cut.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, msg)
	}
	camera := filepath.Join(dir, "camera.mp4")
	env, metricsURL := liveEnv(t, camera, b.URL())
	setenv(t, env)
	var stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := runAsync(ctx, io.Discard, &stderr, "live", "--config", abs(t, sample("freebet-1080p", "yaml")))
	m := waitMetric(t, metricsURL, 30*time.Second, "the metrics endpoint", func(map[string]float64) bool { return true })
	if m["bjmonitor_capture_connected"] != 0 || m["bjmonitor_frames_total"] != 0 {
		t.Fatalf("frames without a camera: %v", m)
	}
	if err := os.Rename(short, camera); err != nil {
		t.Fatal(err)
	}
	m = waitMetric(t, metricsURL, time.Minute, "frames from the camera", func(m map[string]float64) bool { return m["bjmonitor_frames_total"] >= 50 })
	first := m["bjmonitor_frames_total"]
	// The file ends (the camera drops) and is gone when the monitor
	// reconnects.
	if err := os.Rename(camera, short); err != nil {
		t.Fatal(err)
	}
	waitMetric(t, metricsURL, time.Minute, "the camera to drop", func(m map[string]float64) bool { return m["bjmonitor_capture_connected"] == 0 })
	// A round played while the camera is away is still judged at its
	// game_end, with what was seen: nothing.
	watch := mqtttest.Subscribe(t, b.URL(), "officer", "bjmonitor/freebet-1080p/alert", true)
	mqtttest.Publish(t, b.URL(), "bjmonitor/freebet-1080p/controller",
		`{"type":"game_start","round":"dark"}`, `{"type":"wager","round":"dark","seat":3,"bet":"21+3","amount":5}`,
		`{"type":"payout","round":"dark","seat":3,"bet":"21+3","amount":45}`, `{"type":"game_end","round":"dark"}`)
	sent := time.Now()
	a := watch.Next(t, 10*time.Second)
	if !strings.Contains(a.Payload, `"round":"dark"`) || !strings.Contains(a.Payload, `"severity":"review"`) {
		t.Errorf("alert for the round played in the dark: %s", a.Payload)
	}
	dark := time.Since(sent)
	if err := os.Rename(short, camera); err != nil {
		t.Fatal(err)
	}
	m = waitMetric(t, metricsURL, time.Minute, "frames after the camera came back", func(m map[string]float64) bool {
		return m["bjmonitor_frames_total"] > first && m["bjmonitor_capture_reconnects_total"] >= 1
	})
	if c := m[`bjmonitor_frames_skipped_total{reason="calibration"}`]; c != 0 {
		t.Errorf("%v frames skipped: calibration failed after the camera came back", c)
	}
	select {
	case err := <-done:
		t.Fatalf("the monitor stopped: %v\n%s", err, stderr.String())
	default:
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("live: %v", err)
	}
	t.Logf("tried: no camera at start, camera for 2 s, gone (a round played meanwhile), back; survived: %v frames before, %v after, %v reconnects, the dark round's alert %v after its game_end",
		first, m["bjmonitor_frames_total"], m["bjmonitor_capture_reconnects_total"], dark.Round(time.Millisecond))
}

// TestLiveBadConfig: a bad value, in the environment or a flag, stops the
// monitor before it starts, with an error that names the field as the user
// writes it, and exit status 2.
func TestLiveBadConfig(t *testing.T) {
	cases := []struct {
		env   string
		args  []string
		field string
	}{
		{"MONITOR_LIVE_FPS=-5", nil, "live.fps"},
		{"MONITOR_LIVE_SOURCE=", nil, "live.source"},
		{"MONITOR_LIVE_SOURCE=ftp://cam/x", nil, "live.source"},
		{"", []string{"--source", "rtsp:///stream"}, "live.source"},
		{"", []string{"--source", "99999999999999999999"}, "live.source"},
		{"MONITOR_LIVE_STATS_INTERVAL=1ms", nil, "live.stats_interval"},
		{"MONITOR_MQTT_BROKER=ftp://broker:21", nil, "mqtt.broker"},
		{"MONITOR_MQTT_EMBEDDED_ADDR=1883", nil, "mqtt.embedded_addr"},
		{"MONITOR_MQTT_REPLAY_PREFIX=bjmonitor", nil, "mqtt.replay_prefix"},
		{"MONITOR_MQTT_TOPIC_PREFIX=a/#", nil, "mqtt.topic_prefix"},
		{"MONITOR_MQTT_CERT_FILE=client.pem", nil, "mqtt.cert_file"},
		{"MONITOR_EVIDENCE_MAX_BYTES=100", nil, "evidence.max_bytes"},
		{"MONITOR_METRICS_ADDR=everywhere", nil, "metrics.addr"},
		{"MONITOR_LOG_LEVEL=loud", nil, "log.level"},
		{"MONITOR_LOG_FORMAT=xml", nil, "log.format"},
	}
	for _, c := range cases {
		t.Run(c.field, func(t *testing.T) {
			t.Setenv("MONITOR_LIVE_SOURCE", "0")
			if k, v, ok := strings.Cut(c.env, "="); ok {
				t.Setenv(k, v)
			}
			args := append([]string{"live", "--config", abs(t, sample("freebet-1080p", "yaml"))}, c.args...)
			_, _, err := run(t, args...)
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != c.field || !strings.Contains(err.Error(), c.field) {
				t.Errorf("%s %v: error %v does not name %s", c.env, c.args, err, c.field)
			}
			if got := exitCode(err); got != 2 {
				t.Errorf("%s %v: exit status %d, want 2", c.env, c.args, got)
			}
		})
	}
}

// TestLiveTLS: with the broker's CA the monitor connects over TLS; with
// another CA it stops at once with an error an installer can act on.
func TestLiveTLS(t *testing.T) {
	dir := t.TempDir()
	certs := testcert.Write(t, dir, "site")
	other := testcert.Write(t, dir, "other")
	plain := mqtttest.FreePort(t)
	b := mqtttest.NewMosquitto(t, fmt.Sprintf("cafile %s\ncertfile %s\nkeyfile %s\nlistener %d 127.0.0.1\n", certs.CA, certs.ServerCert, certs.ServerKey, plain))
	b.Start()
	tlsURL := fmt.Sprintf("ssl://127.0.0.1:%d", b.Port)
	env, _ := liveEnv(t, filepath.Join(dir, "no-camera.mp4"), tlsURL)
	setenv(t, env)
	config := abs(t, sample("freebet-1080p", "yaml"))

	t.Setenv("MONITOR_MQTT_CA_FILE", other.CA)
	start := time.Now()
	_, _, err := run(t, "live", "--config", config)
	if !errors.Is(err, publish.ErrTLS) || !strings.Contains(err.Error(), "certificate") || !strings.Contains(err.Error(), tlsURL) {
		t.Errorf("wrong CA: error %v; want publish.ErrTLS naming the broker and the certificate", err)
	}
	t.Logf("tried: the wrong CA; the monitor stopped after %v with: %v", time.Since(start).Round(time.Millisecond), err)

	t.Setenv("MONITOR_MQTT_CA_FILE", certs.CA)
	watch := mqtttest.Subscribe(t, fmt.Sprintf("tcp://127.0.0.1:%d", plain), "officer", "bjmonitor/freebet-1080p/available", true)
	ctx, cancel := context.WithCancel(context.Background())
	done := runAsync(ctx, io.Discard, io.Discard, "live", "--config", config)
	if m := watch.Next(t, 20*time.Second); m.Payload != "online" {
		t.Errorf("over TLS the table reads %q, want online", m.Payload)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("live over TLS: %v", err)
	}
	t.Log("tried: the right CA; the table went online over TLS")
}

// TestUnkeptMeter: a meter reading for a bet the monitor keeps no meter
// of is skipped, logged and counted wherever it comes, first of all
// before any round has been judged, where it once vanished without a
// trace; a Blazing 7's reading is taken.
func TestUnkeptMeter(t *testing.T) {
	var logged strings.Builder
	l := &live{log: slog.New(slog.NewTextHandler(&logged, nil)), met: newMetrics(gauges{})}
	for _, tt := range []struct {
		msg    string
		taken  bool
		result string
	}{
		{`{"type":"meter","bet":"pot_of_gold","amount":1500}`, false, "unknown_meter"},
		{`{"type":"meter","bet":"21+3","amount":10}`, false, "unknown_meter"},
		{`{"type":"meter","bet":"blazing7s","amount":1500}`, true, "ok"},
	} {
		before := testutil.ToFloat64(l.met.controller.WithLabelValues(tt.result))
		logged.Reset()
		_, taken := l.parseController([]byte(tt.msg), false)
		if counted := testutil.ToFloat64(l.met.controller.WithLabelValues(tt.result)) - before; taken != tt.taken || counted != 1 {
			t.Errorf("%s: taken %v, counted %s %v times; want taken %v, counted once", tt.msg, taken, tt.result, counted, tt.taken)
		}
		if !tt.taken && !strings.Contains(logged.String(), "meter reading skipped") {
			t.Errorf("%s: skipped without a log line: %q", tt.msg, logged.String())
		}
	}
}

// FuzzController throws arbitrary controller messages at the live
// monitor's parser: nothing panics, every message is counted once as ok,
// malformed, of unknown type, too large or a meter reading for a bet with
// no meter, and only ok ones go on to the frame loop
// (whose clock driver.FuzzQueue tries).
func FuzzController(f *testing.F) {
	for _, s := range []string{
		`{"type":"game_start","round":"1842","t":12.30}`,
		`{"type":"wager","round":"1842","seat":3,"bet":"21+3","amount":5,"ts":"2026-11-29T10:00:00Z"}`,
		`{"type":"payout","round":"1842","seat":3,"bet":"21+3","amount":45,"t":1e308}`,
		`{"type":"meter","bet":"blazing7s","amount":-1}`,
		`{"type":"meter","bet":"pot_of_gold","amount":1500}`,
		`{"type":"shoe_change"}`, `not json`, `{"type":"game_end"}{"type":"game_end"}`, "",
		// The same seq twice: the second is a repeat, counted as one.
		`{"type":"game_start","round":"1843","seq":7}`, `{"type":"game_start","round":"1843","seq":7}`,
	} {
		f.Add([]byte(s))
	}
	l := &live{log: slog.New(slog.NewTextHandler(io.Discard, nil)), met: newMetrics(gauges{
		outboxDepth: func() float64 { return 0 }, connected: func() float64 { return 0 },
		reconnects: func() float64 { return 0 }, capturing: func() float64 { return 0 },
	})}
	count := func() float64 {
		n := 0.0
		for _, r := range controllerResults {
			n += testutil.ToFloat64(l.met.controller.WithLabelValues(r))
		}
		return n
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		before, ok := count(), testutil.ToFloat64(l.met.controller.WithLabelValues("ok"))
		_, passed := l.parseController(payload, false)
		if got := count() - before; got != 1 {
			t.Fatalf("message counted %v times", got)
		}
		if counted := testutil.ToFloat64(l.met.controller.WithLabelValues("ok")) - ok; passed != (counted == 1) {
			t.Fatalf("passed on %v, counted ok %v times", passed, counted)
		}
	})
}

// TestLiveEmbeddedBroker: with no broker configured, the monitor serves
// one itself, so a single box works as it comes: a console subscribes to
// it and sees the table online.
func TestLiveEmbeddedBroker(t *testing.T) {
	port := mqtttest.FreePort(t)
	env, _ := liveEnv(t, filepath.Join(t.TempDir(), "no-camera.mp4"), "")
	setenv(t, env)
	t.Setenv("MONITOR_MQTT_EMBEDDED_ADDR", fmt.Sprintf("127.0.0.1:%d", port))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := runAsync(ctx, io.Discard, io.Discard, "live", "--config", abs(t, sample("freebet-1080p", "yaml")))
	url := fmt.Sprintf("tcp://127.0.0.1:%d", port)
	deadline := time.Now().Add(20 * time.Second)
	for !mqtttest.Reachable(url) {
		if time.Now().After(deadline) {
			t.Fatal("the embedded broker did not listen within 20 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	watch := mqtttest.Subscribe(t, url, "officer", "bjmonitor/freebet-1080p/available", true)
	if m := watch.Next(t, 10*time.Second); m.Payload != "online" {
		t.Fatalf("table %q, want online", m.Payload)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("live: %v", err)
	}
	t.Log("tried: no broker configured; survived: a console on the embedded broker saw the table online")
}

// runAsync runs the monitor with args on a goroutine of its own, until ctx
// ends; its error comes on the channel.
func runAsync(ctx context.Context, stdout, stderr io.Writer, args ...string) <-chan error {
	done := make(chan error, 1)
	go func() { done <- (&Main{Stdout: stdout, Stderr: stderr}).Run(ctx, args) }()
	return done
}
