package main

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"bjmonitor/capture"
	"bjmonitor/pipeline"
	"bjmonitor/publish"
)

// liveStats gathers what the stats topic reports over each interval. The
// frame loop adds to it; the stats goroutine takes it.
type liveStats struct {
	mu        sync.Mutex
	since     time.Time
	frames    int
	dropped   int
	latencies []time.Duration
	stages    pipeline.Timings // summed
}

func newLiveStats() *liveStats { return &liveStats{since: time.Now()} }

func (s *liveStats) frame(latency time.Duration, dropped int, tm pipeline.Timings) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frames++
	s.dropped += dropped
	if len(s.latencies) < 100000 {
		s.latencies = append(s.latencies, latency)
	}
	s.stages.Vision += tm.Vision
	s.stages.Tracker += tm.Tracker
	s.stages.Reconcile += tm.Reconcile
}

// statsRecord is the payload of <prefix>/<table>/stats.
type statsRecord struct {
	Type            string             `json:"type"`
	Table           string             `json:"table"`
	TS              time.Time          `json:"ts"`
	IntervalS       float64            `json:"interval_s"`
	FPS             float64            `json:"fps"`
	Frames          int                `json:"frames"`
	Dropped         int                `json:"dropped"`
	LatencyMS       map[string]float64 `json:"latency_ms"`
	StageMS         map[string]float64 `json:"stage_ms"`
	OutboxDepth     int                `json:"outbox_depth"`
	BrokerConnected bool               `json:"broker_connected"`
	CameraConnected bool               `json:"camera_connected"`
	Reconnects      int64              `json:"camera_reconnects"`
}

// take returns the interval's record and starts the next interval.
func (s *liveStats) take(now time.Time) statsRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	secs := now.Sub(s.since).Seconds()
	r := statsRecord{Type: "stats", TS: now.UTC(), IntervalS: secs, Frames: s.frames, Dropped: s.dropped,
		LatencyMS: map[string]float64{}, StageMS: map[string]float64{}}
	if secs > 0 {
		r.FPS = float64(s.frames) / secs
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	if n := len(s.latencies); n > 0 {
		slices.Sort(s.latencies)
		r.LatencyMS["p50"] = ms(s.latencies[n/2])
		r.LatencyMS["p99"] = ms(s.latencies[min(n-1, n*99/100)])
		r.LatencyMS["max"] = ms(s.latencies[n-1])
	}
	if s.frames > 0 {
		n := time.Duration(s.frames)
		r.StageMS["vision"] = ms(s.stages.Vision / n)
		r.StageMS["tracker"] = ms(s.stages.Tracker / n)
		r.StageMS["reconcile"] = ms(s.stages.Reconcile / n)
	}
	s.since, s.frames, s.dropped, s.latencies, s.stages = now, 0, 0, s.latencies[:0], pipeline.Timings{}
	return r
}

// statsLoop publishes the stats record every interval until ctx ends.
// Stats are best effort: the publisher drops them while the broker is
// away.
func (l *live) statsLoop(ctx context.Context, s *liveStats, src *capture.Capture) {
	tick := time.NewTicker(l.cfg.Live.StatsInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			r := s.take(now)
			r.Table = l.cfg.Table.ID
			r.OutboxDepth = l.pub.OutboxDepth()
			r.BrokerConnected = l.pub.Connected()
			st := src.Stats()
			r.CameraConnected, r.Reconnects = st.Connected, int64(st.Reconnects)
			l.met.fps.Set(r.FPS)
			b, err := json.Marshal(r)
			if err != nil {
				l.log.Error("stats", "err", err)
				continue
			}
			if err := l.pub.Publish(ctx, publish.KindStats, b); err != nil && ctx.Err() == nil {
				l.log.Debug("stats not published", "err", err)
			}
		}
	}
}
