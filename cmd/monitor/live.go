package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/spf13/pflag"
	"gocv.io/x/gocv"

	"bjmonitor/broker"
	"bjmonitor/calibration"
	"bjmonitor/capture"
	"bjmonitor/controller"
	"bjmonitor/evidence"
	"bjmonitor/evidence/ship"
	"bjmonitor/pipeline"
	"bjmonitor/publish"
)

// liveUsage is the synopsis of monitor live; --help lists the flags under it.
const liveUsage = "monitor live --config FILE [--source SRC] [--broker URL] [--out results.jsonl]"

// runLive is the table-side box: frames from the camera, the controller's
// events from its MQTT topic, results and alerts to the broker (an embedded
// one when none is configured), evidence to disk, metrics over HTTP. It
// runs until ctx ends (a signal), then publishes "stopped".
func (m *Main) runLive(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("live", pflag.ContinueOnError)
	configPath := fs.String("config", "", "configuration file (YAML)")
	out := fs.String("out", "", "also write rounds, outcomes and alerts here (JSON lines)")
	fs.String("source", "", "camera index, rtsp:// URL or video file (default: live.source)")
	fs.String("broker", "", "MQTT broker (default: mqtt.broker; empty runs an embedded one)")
	if err := m.parseFlags(fs, liveUsage, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fmt.Fprintln(m.Stderr, "usage:", liveUsage)
		return errUsage
	}
	cfg, err := loadConfig(*configPath, fs, map[string]string{"live.source": "source", "mqtt.broker": "broker"})
	if err != nil {
		return err
	}
	if cfg.Table.Calibration == "" {
		return &ConfigError{"table.calibration", `""`, "set it to the table file that says where the marks and zones are"}
	}
	if cfg.Live.Source == "" {
		return &ConfigError{"live.source", `""`, `set it to a camera index ("0"), an rtsp:// URL or a video file`}
	}
	if err := cfg.checkFiles(); err != nil {
		return err
	}
	table, err := calibration.Load(cfg.Table.Calibration)
	if err != nil {
		return err
	}
	l := &live{cfg: cfg, table: table, log: cfg.Logger(m.Stderr), stdout: m.Stdout}
	if *out != "" {
		f, err := os.OpenFile(*out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
		if err != nil {
			return err
		}
		defer f.Close()
		l.jsonl = f // unbuffered: a record written is on disk if the box dies
	}
	return l.run(ctx)
}

// live is one run of the live monitor.
type live struct {
	cfg    Config
	table  *calibration.Table
	log    *slog.Logger
	stdout io.Writer
	jsonl  io.Writer

	met   *metrics
	pub   *publish.Publisher
	ev    *evidence.Recorder
	ship  *ship.Shipper // sends ev's files to the consoles
	out   *results
	inbox inbox
}

// inbox holds the controller's events between paho's goroutine, which
// delivers them, and the frame loop, which applies them between frames.
// It never blocks paho and never drops an event.
type inbox struct {
	mu     sync.Mutex
	events []controller.Event
}

func (b *inbox) put(e controller.Event) {
	b.mu.Lock()
	b.events = append(b.events, e)
	b.mu.Unlock()
}

func (b *inbox) empty() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.events) == 0
}

func (b *inbox) take() []controller.Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	es := b.events
	b.events = nil
	return es
}

// onController parses one controller message. A malformed one, or one of a
// type the monitor does not know, is logged, counted and skipped.
func (l *live) onController(payload []byte) {
	e, err := controller.Parse(payload)
	if err != nil {
		result := "malformed"
		if errors.Is(err, controller.ErrUnknownType) {
			result = "unknown_type"
		}
		l.met.controller.WithLabelValues(result).Inc()
		l.log.Warn("controller message skipped", "err", err, "payload", truncate(payload, 200))
		return
	}
	l.met.controller.WithLabelValues("ok").Inc()
	l.inbox.put(e)
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

func (l *live) run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cfg := l.cfg

	// The metrics endpoint serves once every component it reads exists.
	var src *capture.Capture
	l.met = newMetrics(gauges{
		outboxDepth: func() float64 { return float64(l.pub.OutboxDepth()) },
		connected:   func() float64 { return b2f(l.pub.Connected()) },
		reconnects:  func() float64 { return float64(src.Stats().Reconnects) },
		capturing:   func() float64 { return b2f(src.Stats().Connected) },
	})

	brokerURL := cfg.MQTT.Broker
	if brokerURL == "" {
		b, err := broker.Start(ctx, broker.Config{Addr: cfg.MQTT.EmbeddedAddr}, l.log)
		if err != nil {
			return fmt.Errorf("embedded broker (mqtt.broker is empty): %w", err)
		}
		defer b.Close()
		brokerURL = b.URL()
	}
	pc := publishConfig(cfg, brokerURL, cfg.MQTT.TopicPrefix, cfg.MQTT.ClientID, cfg.MQTT.Outbox)
	pc.Handlers = map[string]func([]byte){publish.KindController: l.onController}
	if err := os.MkdirAll(cfg.MQTT.Outbox, 0o750); err != nil {
		return fmt.Errorf("mqtt.outbox: %w", err)
	}
	var err error
	if l.pub, err = publish.New(pc); err != nil {
		return err
	}
	// Closing the publisher marks the table "stopped"; it must happen
	// before the embedded broker closes.
	defer func() {
		if err := l.pub.Close(); err != nil {
			l.log.Warn("closing the broker connection", "err", err)
		}
	}()
	l.out = newResults(cfg.Table.ID, l.jsonl, l.pub, l.log)

	if cfg.Evidence.Dir != "" {
		defer l.runShipper(ctx)() // stops after the recorder, to send its last clips
		l.ev, err = evidence.New(ctx, evidence.Config{Dir: cfg.Evidence.Dir, MaxAge: cfg.Evidence.MaxAge, MaxBytes: cfg.Evidence.MaxBytes, Logger: l.log})
		if err != nil {
			return userField(err)
		}
		defer func() {
			if err := l.ev.Close(); err != nil {
				l.log.Warn("evidence", "err", err)
			}
		}()
	}
	// The camera starts last, so that the controller's events the broker
	// queued for this monitor's session are in before the first frame.
	cc := capture.DefaultConfig()
	cc.Source, cc.Realtime = cfg.Live.Source, cfg.Live.Realtime
	if src, err = capture.Start(ctx, cc, l.log); err != nil {
		return userField(err)
	}
	defer src.Close()
	if cfg.Metrics.Addr != "" {
		stopped, err := l.met.serve(ctx, cfg.Metrics.Addr, l.log)
		if err != nil {
			return err
		}
		defer func() { cancel(); <-stopped }()
	}
	l.log.Info("live monitor started", "table", cfg.Table.ID, "source", cfg.Live.Source, "broker", brokerURL,
		"topics", cfg.MQTT.TopicPrefix+"/"+cfg.Table.ID+"/#")
	return l.loop(ctx, src)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// loop reads frames until ctx ends. No bad frame, failed calibration or
// failing stage stops it: each is logged and counted, and the next frame
// is read.
//
// Video time is the frame's number over the frame rate, as in a replay,
// kept level with the wall clock across a camera outage. A controller
// event is applied before the first frame at or after its time: t is in
// seconds from the first frame; ts is wall-clock time (a controller clock
// running ahead is trusted for 2 s at most); an event with neither is
// applied as it arrives. While the camera is away, events are applied as
// the wall clock reaches them, so a round that ends then is still judged,
// with what was seen.
func (l *live) loop(ctx context.Context, src *capture.Capture) error {
	mat := gocv.NewMat()
	defer mat.Close()
	s := &session{l: l, src: src}
	defer func() {
		if s.pl != nil {
			s.pl.Close()
		}
	}()
	stats := newLiveStats()
	statsDone := make(chan struct{})
	go func() {
		defer close(statsDone)
		l.statsLoop(ctx, stats, src)
	}()
	defer func() { <-statsDone }()
	var lastWarn time.Time
	for {
		nctx, cancel := context.WithTimeout(ctx, idleTick)
		info, err := src.Next(nctx, &mat)
		cancel()
		switch {
		case ctx.Err() != nil:
			return s.finish(context.WithoutCancel(ctx))
		case errors.Is(err, context.DeadlineExceeded):
			if s.pl != nil {
				s.events(ctx, s.index, s.t+time.Since(s.lastFrame).Seconds())
			}
			continue
		case err != nil:
			return err
		}
		if s.pl == nil {
			if err := s.open(info.Time); err != nil {
				return err
			}
		}
		index := int(info.Seq - 1)
		if info.Reconnected {
			l.log.Info("the camera is back: calibrating again")
			s.pl.Recalibrate()
			if l.cfg.Live.Realtime {
				if gap := info.Time.Sub(s.start).Seconds() - (float64(index)/s.fps + s.offset); gap > 0 {
					s.offset += gap
				}
			}
		}
		t := float64(index)/s.fps + s.offset
		s.index, s.t, s.lastFrame = index, t, info.Time
		l.met.dropped.Add(float64(info.Dropped))
		s.events(ctx, index, t)
		// Every frame goes into the evidence clips, read or not.
		if l.ev != nil {
			if err := l.ev.Add(mat, t); err != nil {
				l.met.evidenceErr.Inc()
			}
		}
		if !s.pick.take(index) {
			continue // not one to read (vision.analysis_fps)
		}
		_, res, err := s.pl.Frame(mat, index, t)
		if err != nil {
			reason := "error"
			if errors.Is(err, calibration.ErrCalibration) {
				reason = "calibration"
			}
			l.met.skipped.WithLabelValues(reason).Inc()
			if time.Since(lastWarn) > 10*time.Second {
				l.log.Warn("frame not read", "frame", index, "err", err)
				lastWarn = time.Now()
			}
			continue
		}
		if c := s.pl.Calibration(); c != s.viewed {
			warnOutOfView(l.log, c) // after each calibration: the camera may have moved
			s.viewed = c
		}
		tm := s.pl.Timings()
		l.met.vision.Observe(tm.Vision.Seconds())
		l.met.tracker.Observe(tm.Tracker.Seconds())
		l.met.reconcile.Observe(tm.Reconcile.Seconds())
		l.emit(ctx, s.pl, res, index, t, s.fps)
		l.met.frames.Inc()
		latency := time.Since(info.Time)
		l.met.latency.Observe(latency.Seconds())
		stats.frame(latency, info.Dropped, tm)
	}
}

// idleTick is how long the loop waits for a frame before it applies the
// controller's events by the wall clock.
const idleTick = 500 * time.Millisecond

// session is the frame loop's state: the pipeline, opened at the first
// frame, and the clock.
type session struct {
	l         *live
	src       *capture.Capture
	pl        *pipeline.Pipeline
	start     time.Time // wall time of the first frame
	fps       float64
	offset    float64 // video time lost to camera outages
	index     int     // the last frame's number and video time
	t         float64
	lastFrame time.Time
	pending   []timedEvent
	pick      *sampler                 // the frames read for cards
	viewed    *calibration.Calibration // the last calibration whose zones out of view were logged
}

// open opens the pipeline; the first frame, read at start, sets the clock
// and the frame rate.
func (s *session) open(start time.Time) error {
	s.start, s.lastFrame = start, start
	if s.fps = s.l.cfg.Live.FPS; s.fps == 0 {
		s.fps = s.src.Stats().FPS
	}
	if !(s.fps >= 1 && s.fps <= 240) {
		s.l.log.Warn("the source does not say its frame rate; taking 25 (set live.fps)", "reported", s.fps)
		s.fps = 25
	}
	pc, err := pipelineConfig(s.l.cfg, s.l.table, s.fps)
	if err != nil {
		return err
	}
	s.pick = newSampler(s.fps, s.l.cfg.Vision.AnalysisFPS)
	s.pl, err = pipeline.New(pc)
	return err
}

// events applies the controller's events due by video time t, at frame
// index.
func (s *session) events(ctx context.Context, index int, t float64) {
	for _, e := range s.l.inbox.take() {
		s.pending = append(s.pending, timedEvent{e, t})
	}
	var due []controller.Event
	due, s.pending = dueEvents(s.pending, s.start, t+0.5/s.fps)
	for _, e := range due {
		s.l.emit(ctx, s.pl, s.pl.Event(e, index), index, t, s.fps)
	}
}

// finish applies every event still waiting, then judges the round in play
// with what was seen, so that no entry goes unjudged (the round's doubt
// says the monitor stopped). A monitor that never saw a frame opens the
// pipeline for this.
func (s *session) finish(ctx context.Context) error {
	if s.pl == nil {
		if len(s.pending) == 0 && s.l.inbox.empty() {
			return nil
		}
		if err := s.open(time.Now()); err != nil {
			return err
		}
	}
	s.events(ctx, s.index, math.Inf(1))
	s.l.emit(ctx, s.pl, s.pl.Flush(), s.index, s.t, s.fps)
	return nil
}

// timedEvent is a controller event and the video time it arrived at.
type timedEvent struct {
	controller.Event
	arrived float64
}

// maxEarly bounds how far ahead of its arrival a ts-timed event may be
// held: the controller's clock may run ahead of the monitor's.
const maxEarly = 2.0

// maxPendingEvents bounds the events held for later: beyond it the earliest
// are applied at once.
const maxPendingEvents = 10000

// dueEvents splits pending into the events due by video time t, in time
// order (arrival order among equals), and those still to come.
func dueEvents(pending []timedEvent, start time.Time, t float64) (due []controller.Event, rest []timedEvent) {
	at := func(e timedEvent) float64 {
		switch {
		case e.T != nil:
			return *e.T
		case e.TS != nil:
			return math.Min(e.TS.Sub(start).Seconds(), e.arrived+maxEarly)
		}
		return e.arrived
	}
	slices.SortStableFunc(pending, func(a, b timedEvent) int { return cmp.Compare(at(a), at(b)) })
	n := 0
	for n < len(pending) && (at(pending[n]) <= t || len(pending)-n > maxPendingEvents) {
		due = append(due, pending[n].Event)
		n++
	}
	return due, pending[n:]
}

// emit writes evidence for each alert, then publishes the records. A
// record that cannot be queued (the outbox's disk failing) is logged as an
// error with the whole record, so that it is still in the log.
func (l *live) emit(ctx context.Context, pl *pipeline.Pipeline, results []pipeline.Result, frame int, t, fps float64) {
	for _, res := range results {
		at := moment(res.Round, frame, t, fps)
		for i, a := range res.Alerts {
			if l.ev == nil || pl.Calibration() == nil {
				continue
			}
			p, err := l.ev.Save(a.ID, at, drawEvidence(pl.Calibration(), res.Round, a))
			if err != nil {
				l.met.evidenceErr.Inc()
				l.log.Warn("alert evidence not written", "alert", a.ID, "err", err)
				continue
			}
			res.Alerts[i].Snapshot, res.Alerts[i].Clip = p.Snapshot, p.Clip
			l.ship.Send(a.ID, p.Snapshot, p.Clip)
		}
		if err := l.out.write(ctx, res); err != nil {
			b, _ := json.Marshal(res)
			l.log.Error("results could not be queued for the broker", "err", err, "round", res.Round.ID, "results", string(b))
		}
		// Counted once queued: a round counted is on disk.
		l.met.rounds.Inc()
		for _, a := range res.Alerts {
			l.met.alerts.WithLabelValues(a.Kind, a.Severity).Inc()
		}
		for _, a := range res.Alerts {
			fmt.Fprintf(l.stdout, "ALERT %s [%s] round %s seat %d %s: %s\n", a.Kind, a.Severity, a.Round, a.Seat, a.Bet, a.Detail)
		}
	}
}
