package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"bjmonitor/pipeline"
	"bjmonitor/publish"
)

// metrics are the live monitor's Prometheus metrics. Counters and
// histograms are updated by the frame loop; gauges that belong to another
// component (the outbox, the broker connection, the capture) are read from
// it at scrape time through the funcs given to newMetrics.
type metrics struct {
	reg     *prometheus.Registry
	frames  prometheus.Counter
	dropped prometheus.Counter
	skipped *prometheus.CounterVec
	stage   *prometheus.HistogramVec
	// The stages' histograms, looked up once: they are observed every frame.
	vision, tracker, reconcile prometheus.Observer
	latency                    prometheus.Histogram
	fps                        prometheus.Gauge
	rounds                     prometheus.Counter
	alerts                     *prometheus.CounterVec
	sentRecords                *prometheus.CounterVec
	controller                 *prometheus.CounterVec
	journal                    *prometheus.CounterVec
	lateEnds                   prometheus.Counter
	evidenceErr                prometheus.Counter
	zones, crops               prometheus.Counter
	// seen is the pipeline's work counted so far: the counters above
	// advance by what a frame added.
	seen pipeline.Stats
}

// gauges are read from the components that own them, at scrape time.
type gauges struct {
	outboxDepth func() float64
	outboxHeld  func() float64 // records the disk refused, waiting in memory
	outHeld     func() float64 // the same for the --out file
	statsLost   func() float64 // stats dropped after a long broker outage
	connected   func() float64
	reconnects  func() float64
	capturing   func() float64
}

// controllerResults are the results a controller message is counted by
// (controller_events_total): each message gets exactly one.
var controllerResults = []string{"ok", "malformed", "unknown_type", "repeated", "too_large", "unknown_meter"}

func newMetrics(g gauges) *metrics {
	const ns = "bjmonitor"
	m := &metrics{
		reg: prometheus.NewRegistry(),
		frames: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "frames_total",
			Help: "Frames read through the pipeline (vision.analysis_fps caps them)."}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "frames_dropped_total",
			Help: "Frames the camera delivered that were overwritten before the pipeline could take them."}),
		skipped: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "frames_skipped_total",
			Help: "Frames taken but not read, by reason (calibration: the marks could not be found; error: the frame could not be read)."}, []string{"reason"}),
		stage: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Name: "stage_seconds",
			Help:    "Time each pipeline stage took on a frame.",
			Buckets: []float64{0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5}}, []string{"stage"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: ns, Name: "frame_latency_seconds",
			Help:    "From a frame's capture to the end of its processing.",
			Buckets: []float64{0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2}}),
		fps: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Name: "fps",
			Help: "Frames read per second, over the last stats interval."}),
		rounds: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "rounds_total",
			Help: "Rounds rebuilt and judged (records_sent_total counts what reached the broker)."}),
		alerts: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "alerts_total",
			Help: "Alerts the broker has acknowledged, by kind and severity (those waiting are in outbox_depth)."}, []string{"kind", "severity"}),
		sentRecords: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "records_sent_total",
			Help: "Round, outcome and alert records the broker has acknowledged, by type."}, []string{"type"}),
		controller: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "controller_events_total",
			Help: "Controller messages received, by result (ok, malformed, unknown_type, repeated: a seq seen already, too_large: over 64 KiB, unknown_meter: a meter reading for a bet with no meter)."}, []string{"result"}),
		journal: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "controller_journal_total",
			Help: "The controller journal's events, by result (replayed: taken again at start; late_game_end: a game_end for a round judged before the restart, not taken again; skipped: a torn or corrupt line; unwritten: an append the disk refused; dropped: the oldest, past the journal's bound; judged_corrupt: the file of the rounds judged, torn or corrupt at start)."}, []string{"result"}),
		lateEnds: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "late_game_ends_total",
			Help: "Controller game_ends for a round judged already (in this run or before a restart), skipped (those the journal held at a restart: controller_journal_total{result=\"late_game_end\"})."}),
		evidenceErr: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "evidence_errors_total",
			Help: "Alerts whose snapshot or clip could not be written."}),
		zones: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "zones_read_total",
			Help: "Table zones read afresh: a zone is read again only when its picture changed."}),
		crops: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "crops_read_total",
			Help: "Card corner crops the model read (the others kept an earlier reading)."}),
	}
	m.reg.MustRegister(m.frames, m.dropped, m.skipped, m.stage, m.latency, m.fps, m.rounds, m.alerts, m.sentRecords, m.controller, m.journal, m.lateEnds, m.evidenceErr,
		m.zones, m.crops,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: ns, Name: "outbox_depth",
			Help: "Results waiting for the broker."}, g.outboxDepth),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: ns, Name: "unwritten_records", ConstLabels: prometheus.Labels{"file": "outbox"},
			Help: "Records the disk refused, waiting in memory to be written (they are sent all the same)."}, g.outboxHeld),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: ns, Name: "unwritten_records", ConstLabels: prometheus.Labels{"file": "out"},
			Help: "Records the disk refused, waiting in memory to be written (they are sent all the same)."}, g.outHeld),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: ns, Name: "broker_connected",
			Help: "1 while the broker connection is up."}, g.connected),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: ns, Name: "stats_dropped_total",
			Help: "Stats records dropped because the broker was away longer than the kept ones cover (an hour at 10 s)."}, g.statsLost),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: ns, Name: "capture_reconnects_total",
			Help: "Times the video source was opened again after it dropped."}, g.reconnects),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: ns, Name: "capture_connected",
			Help: "1 while the video source delivers frames."}, g.capturing),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	m.vision = m.stage.WithLabelValues("vision")
	m.tracker = m.stage.WithLabelValues("tracker")
	m.reconcile = m.stage.WithLabelValues("reconcile")
	for _, r := range controllerResults {
		m.controller.WithLabelValues(r)
	}
	for _, r := range []string{"replayed", "late_game_end", "skipped", "unwritten", "dropped", "judged_corrupt"} {
		m.journal.WithLabelValues(r)
	}
	for _, r := range []string{"calibration", "error"} {
		m.skipped.WithLabelValues(r)
	}
	for _, r := range []string{"round", "outcome", "alert"} {
		m.sentRecords.WithLabelValues(r)
	}
	return m
}

// sent counts a record the broker has acknowledged: the publisher's
// OnSent, called on its sender goroutine.
func (m *metrics) sent(kind string, payload []byte) {
	m.sentRecords.WithLabelValues(kind).Inc()
	if kind != publish.KindAlert {
		return
	}
	var a struct{ Kind, Severity string }
	if err := json.Unmarshal(payload, &a); err != nil {
		a.Kind, a.Severity = "unknown", "unknown" // an alert all the same
	}
	m.alerts.WithLabelValues(a.Kind, a.Severity).Inc()
}

// pipeline advances the counters of the pipeline's work to its stats now.
func (m *metrics) pipeline(now pipeline.Stats) {
	m.zones.Add(float64(now.Vision.Zones - m.seen.Vision.Zones))
	m.crops.Add(float64(now.Vision.Crops - m.seen.Vision.Crops))
	m.seen = now
}

// serve serves /metrics on addr until ctx ends. The listener is opened
// before serve returns, so a port in use is an error at start.
func (m *metrics) serve(ctx context.Context, addr string, log *slog.Logger) (stopped <-chan struct{}, err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics endpoint: %w (set metrics.addr to a free port, or empty for none)", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics endpoint stopped", "err", err)
		}
	}()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	log.Info("metrics endpoint", "url", "http://"+ln.Addr().String()+"/metrics")
	return done, nil
}

// outHeld is the number of --out records waiting in memory for the disk.
func (l *live) outHeld() float64 {
	if l.jsonl == nil {
		return 0
	}
	return float64(l.jsonl.Held())
}
