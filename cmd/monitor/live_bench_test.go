package main

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"bjmonitor/internal/mqtttest"
)

// BenchmarkAlertLatency runs the live monitor on the bundled 1080p sample
// at its real pace, as from a camera, while the controller's events of the
// first round go out over MQTT as the dealer enters them (untimed, applied
// as they arrive). It reports how long after game_end each alert reaches a
// subscriber (the bar: within 1 s). One iteration takes the round's 24 s:
// run it with -benchtime 1x.
func BenchmarkAlertLatency(b *testing.B) {
	const table = "freebet-1080p"
	var lat []time.Duration
	for range b.N {
		lat = append(lat, alertLatencies(b, table)...)
	}
	if len(lat) == 0 {
		b.Fatal("no alert arrived")
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "ms_p50")
	b.ReportMetric(float64(lat[len(lat)-1].Milliseconds()), "ms_max")
	b.ReportMetric(float64(len(lat))/float64(b.N), "alerts/op")
}

func alertLatencies(b *testing.B, table string) []time.Duration {
	mq := mqtttest.NewMosquitto(b, "")
	mq.Start()
	watch := mqtttest.Subscribe(b, mq.URL(), "officer", "bjmonitor/"+table+"/alert", true)
	env, _ := liveEnv(b, abs(b, sample(table, "mp4")), mq.URL())
	for _, kv := range append(env, "MONITOR_LIVE_REALTIME=true") {
		k, v, _ := strings.Cut(kv, "=")
		b.Setenv(k, v)
	}
	// The first round's events, timed by the bench instead of by t.
	type timed struct {
		at   time.Duration
		line string
	}
	var events []timed
	for _, line := range controllerLog(b, table) {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			b.Fatal(err)
		}
		t := e["t"].(float64)
		delete(e, "t")
		untimed, _ := json.Marshal(e)
		events = append(events, timed{time.Duration(t * float64(time.Second)), string(untimed)})
		if e["type"] == "game_end" {
			break
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := runAsync(ctx, io.Discard, io.Discard, "live", "--config", abs(b, sample(table, "yaml")))
	if m := mqtttest.Subscribe(b, mq.URL(), "probe", "bjmonitor/"+table+"/available", true).Next(b, 30*time.Second); m.Payload != "online" {
		b.Fatalf("table %s", m.Payload)
	}
	start := time.Now()
	var end time.Time
	for _, e := range events {
		time.Sleep(time.Until(start.Add(e.at)))
		mqtttest.Publish(b, mq.URL(), "bjmonitor/"+table+"/controller", e.line)
		end = time.Now()
	}
	var lat []time.Duration
	timeout := time.After(10 * time.Second)
	for len(lat) < 7 {
		select {
		case <-watch.C():
			lat = append(lat, time.Since(end))
		case <-timeout:
			b.Logf("only %d of 7 alerts within 10 s of game_end", len(lat))
			cancel()
			<-done
			return lat
		}
	}
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	return lat
}
