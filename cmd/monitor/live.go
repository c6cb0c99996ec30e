package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"bjmonitor/broker"
	"bjmonitor/calibration"
	"bjmonitor/capture"
	"bjmonitor/controller"
	"bjmonitor/driver"
	"bjmonitor/evaluator"
	"bjmonitor/evidence"
	"bjmonitor/evidence/ship"
	"bjmonitor/pipeline"
	"bjmonitor/publish"
	"bjmonitor/sdnotify"
	"bjmonitor/tracker"
	"bjmonitor/vision"
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
		// Unbuffered: a record written is on disk if the process dies; one
		// the disk refuses waits in memory until it takes it.
		f, err := publish.OpenLines(*out, l.log)
		if err != nil {
			return err
		}
		defer f.Close()
		l.jsonl = f
	}
	return l.run(ctx)
}

// live is one run of the live monitor, and the sink of its frame loop.
type live struct {
	cfg    Config
	table  *calibration.Table
	log    *slog.Logger
	stdout io.Writer
	jsonl  *publish.Lines // nil: no --out

	met      *metrics
	pub      *publish.Publisher
	ev       *evidence.Recorder
	ship     *ship.Shipper // sends ev's files to the consoles
	out      *results
	stats    *liveStats
	drv      *driver.Driver // holds the controller's events until their time
	lastWarn time.Time      // of a frame not read
	gaps     brokerGaps     // the broker connection's gaps, for the rounds they doubt
	jn       *journal       // the controller events taken and not yet judged, on disk
	alive    *sdnotify.Supervisor

	dedupMu sync.Mutex
	dedup   controller.Dedup // the controller's seqs seen lately
}

// onController hands one controller message, parsed, to the frame loop,
// journaled first: the broker takes its acknowledgement once this returns.
func (l *live) onController(m publish.Message) {
	if e, ok := l.parseController(m.Payload, m.Redelivered); ok {
		l.jn.take(e)
	}
}

// maxControllerPayload bounds a controller message: an event is a few
// hundred bytes, and a flood of large ones must not fill the box's memory.
const maxControllerPayload = 64 << 10

// parseController parses one controller message. A malformed one, one of
// a type the monitor does not know, one over maxControllerPayload, a
// re-send, or a meter reading for a bet with no meter (unkeptMeter) is
// logged, counted and skipped. A re-send is an event whose seq
// was seen already, or, for an event without seq, one the broker
// redelivered (it had no acknowledgement) that the journal holds as it
// is: the monitor took it, and was killed or cut off before acknowledging
// it. An event without seq that the broker did not flag is always taken,
// since a dealer may enter the same thing twice (a second payout is a
// procedure alert).
func (l *live) parseController(payload []byte, redelivered bool) (controller.Event, bool) {
	if len(payload) > maxControllerPayload {
		l.met.controller.WithLabelValues("too_large").Inc()
		l.log.Warn("controller message refused: over 64 KiB", "bytes", len(payload), "payload", truncate(payload, 200))
		return controller.Event{}, false
	}
	e, err := controller.Parse(payload)
	if err != nil {
		result := "malformed"
		if errors.Is(err, controller.ErrUnknownType) {
			result = "unknown_type"
		}
		l.met.controller.WithLabelValues(result).Inc()
		l.log.Warn("controller message skipped", "err", err, "payload", truncate(payload, 200))
		return controller.Event{}, false
	}
	if l.repeat(e) {
		l.met.controller.WithLabelValues("repeated").Inc()
		l.log.Info("controller message repeated: ignored", "seq", e.Seq, "type", e.Type, "round", e.Round)
		return controller.Event{}, false
	}
	if redelivered && e.Seq == 0 && l.jn != nil && l.jn.j.Holds(e) {
		l.met.controller.WithLabelValues("repeated").Inc()
		l.log.Warn("controller message without seq redelivered by the broker, the same as one taken and not yet judged: ignored as a re-send (send seq to tell them apart for sure)",
			"payload", truncate(payload, 200))
		return controller.Event{}, false
	}
	if unkeptMeter(e) {
		l.met.controller.WithLabelValues("unknown_meter").Inc()
		l.log.Warn("controller meter reading skipped: the monitor keeps a meter for blazing7s only", "bet", e.Bet, "amount", e.Amount)
		return controller.Event{}, false
	}
	l.met.controller.WithLabelValues("ok").Inc()
	return e, true
}

// unkeptMeter reports whether e is a meter reading for a bet the monitor
// keeps no meter of: Blazing 7's is the one progressive bet. Such a
// reading has nothing to be compared with, and is skipped at once,
// logged and counted, wherever it comes (in a round, between rounds,
// before any round was judged).
func unkeptMeter(e controller.Event) bool {
	return e.Type == controller.Meter && e.Bet != string(evaluator.Blazing7s)
}

// repeat reports whether e is a re-send of an event already taken (its
// seq seen before). paho may deliver on more than one goroutine.
func (l *live) repeat(e controller.Event) bool {
	l.dedupMu.Lock()
	defer l.dedupMu.Unlock()
	return l.dedup.Repeat(e)
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
	l.drv = l.newDriver()

	// The metrics endpoint serves once every component it reads exists.
	var src *capture.Capture
	l.met = newMetrics(gauges{
		outboxDepth: func() float64 { return float64(l.pub.OutboxDepth()) },
		outboxHeld:  func() float64 { return float64(l.pub.OutboxHeld()) },
		outHeld:     l.outHeld,
		statsLost:   func() float64 { return float64(l.pub.StatsDropped()) },
		connected:   func() float64 { return b2f(l.pub.Connected()) },
		reconnects:  func() float64 { return float64(src.Stats().Reconnects) },
		capturing:   func() float64 { return b2f(src.Stats().Connected) },
	})

	brokerURL := cfg.MQTT.Broker
	var embedded *broker.Broker
	if brokerURL == "" {
		b, err := broker.Start(ctx, embeddedConfig(cfg), l.log)
		if err != nil {
			return fmt.Errorf("embedded broker (mqtt.broker is empty): %w", err)
		}
		defer b.Close()
		brokerURL, embedded = b.URL(), b
	}
	pc := publishConfig(cfg, brokerURL, cfg.MQTT.TopicPrefix, cfg.MQTT.ClientID, cfg.MQTT.Outbox)
	if embedded != nil {
		pc.Username, pc.Password = embedded.Login()
	}
	pc.Handlers = map[string]func(publish.Message){publish.KindController: l.onController}
	pc.Log = l.log
	pc.OnSent = l.met.sent
	settled, err := l.prepareOutbox(ctx)
	if err != nil || settled == nil {
		return err // settled nil: stopped while waiting to start
	}
	// The journal's events go to the frame loop before the broker
	// delivers any: they came first.
	l.dedupMu.Lock()
	jn, err := openJournal(cfg.MQTT.Outbox, l.drv, &l.dedup, l.met, l.log)
	l.dedupMu.Unlock()
	if err != nil {
		return err
	}
	l.jn = jn
	defer jn.close()
	if l.pub, err = publish.New(pc); err != nil {
		return err
	}
	l.gaps.link = l.pub
	// Closing the publisher marks the table "stopped"; it must happen
	// before the embedded broker closes.
	defer func() {
		if err := l.pub.Close(); err != nil {
			l.log.Warn("closing the broker connection", "err", err)
		}
	}()
	var jsonl io.Writer
	if l.jsonl != nil {
		jsonl = l.jsonl
	}
	l.out = newResults(cfg.Table.ID, jsonl, l.pub, l.log)

	if cfg.Evidence.Dir != "" {
		stop, err := l.startEvidence(ctx)
		if err != nil {
			return err
		}
		defer stop()
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
	// systemd (Type=notify): ready once calibrated and connected; the
	// watchdog fed while frames flow.
	l.alive = sdnotify.Supervise(ctx, sdnotify.FromEnv(), sdnotify.Checks{Connected: l.pub.Connected,
		SourceAway: func() bool { return !src.Stats().Connected }}, l.log)
	defer l.alive.Stop()
	l.log.Info("live monitor started", "table", cfg.Table.ID, "source", cfg.Live.Source, "broker", brokerURL,
		"topics", cfg.MQTT.TopicPrefix+"/"+cfg.Table.ID+"/#")
	settled()
	return l.loop(ctx, src)
}

// startEvidence starts the evidence recorder and the shipper that sends
// its files to the broker; stop closes the recorder, then the shipper,
// so that the last clips are sent.
func (l *live) startEvidence(ctx context.Context) (stop func(), err error) {
	stopShipper := l.runShipper(ctx)
	ec := l.cfg.Evidence
	l.ev, err = evidence.New(ctx, evidence.Config{Dir: ec.Dir, MaxAge: ec.MaxAge, MaxBytes: ec.MaxBytes, Logger: l.log})
	if err != nil {
		stopShipper()
		return nil, userField(err)
	}
	return func() {
		if err := l.ev.Close(); err != nil {
			l.log.Warn("evidence", "err", err)
		}
		stopShipper()
	}, nil
}

// prepareOutbox makes the outbox's folder and waits there as the restart
// backoff says (backOffRestart). It returns a nil settled, and no error,
// when ctx ends during the wait.
func (l *live) prepareOutbox(ctx context.Context) (settled func(), err error) {
	if err := os.MkdirAll(l.cfg.MQTT.Outbox, 0o750); err != nil {
		return nil, fmt.Errorf("mqtt.outbox: %w", err)
	}
	settled, err = backOffRestart(ctx, l.cfg.MQTT.Outbox, sdnotify.FromEnv(), l.log)
	if err != nil {
		return nil, nil
	}
	return settled, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// newDriver makes the frame loop, which holds the controller's events from
// the moment the broker delivers them. No bad frame, failed calibration or
// failing stage stops it: each is logged and counted, and the next frame
// is read. While the camera is away, events are applied as the wall clock
// reaches them, so a round that ends then is still judged, with what was
// seen; when the monitor stops, the round in play is judged too.
func (l *live) newDriver() *driver.Driver {
	return driver.New(driver.Config{
		Open: l.openPipeline,
		FPS:  l.cfg.Live.FPS, GuessFPS: 25, AnalysisFPS: l.cfg.Vision.AnalysisFPS,
		Idle: idleTick, WallClock: l.cfg.Live.Realtime, MaxPending: maxPendingEvents, Drain: true,
		Log: l.log,
	}, l)
}

// openPipeline opens the frame loop's pipeline: its rounds carry the
// doubts of the broker's gaps and of a restart, it knows the rounds
// judged before the restart (journal.seed), and a late game_end it skips
// is logged and counted.
func (l *live) openPipeline(fps float64) (*pipeline.Pipeline, error) {
	pc, err := pipelineConfig(l.cfg, l.table, fps)
	if err != nil {
		return nil, err
	}
	pc.Doubts = func(r tracker.Round) []string { return append(l.gaps.doubts(r), l.jn.doubts(r)...) }
	pc.LateEnd = l.jn.lateEnd
	pl, err := pipeline.New(pc)
	if err != nil {
		return nil, err
	}
	pl.SeedJudged(l.jn.seed)
	return pl, nil
}

// idleTick is how long the loop waits for a frame before it applies the
// controller's events by the wall clock.
const idleTick = 500 * time.Millisecond

// maxPendingEvents bounds the events held for later: beyond it the earliest
// are applied at once, so that a controller clock far ahead cannot make
// them pile up over months.
const maxPendingEvents = 10000

// loop runs the frame loop, and the stats publisher beside it, until ctx
// ends.
func (l *live) loop(ctx context.Context, src *capture.Capture) error {
	l.stats = newLiveStats()
	statsDone := make(chan struct{})
	go func() {
		defer close(statsDone)
		l.statsLoop(ctx, l.stats, src)
	}()
	defer func() { <-statsDone }()
	return l.drv.Run(ctx, src)
}

// Frame tells systemd's watchdog that frames flow, notes the frame's wall
// time (for the broker gaps a round lived through), counts the frames the
// camera dropped and the pipeline's work, and puts every frame into the
// evidence clips, read or not.
func (l *live) Frame(at driver.At, f driver.Frame) error {
	l.alive.Frame(at.Pipeline.Calibration() != nil)
	l.gaps.frame(at.Index, f.Time)
	l.met.dropped.Add(float64(f.Dropped))
	l.met.pipeline(at.Pipeline.Stats())
	l.jn.settle(at.Pipeline, nil)
	if l.ev != nil {
		if err := l.ev.Add(f.Mat, at.T); err != nil {
			l.met.evidenceErr.Inc()
		}
	}
	return nil
}

// Unread counts a frame not read, and logs one every 10 s at most; the
// loop goes on.
func (l *live) Unread(at driver.At, f driver.Frame, err error) error {
	reason := "error"
	if errors.Is(err, calibration.ErrCalibration) {
		reason = "calibration"
	}
	l.met.skipped.WithLabelValues(reason).Inc()
	if time.Since(l.lastWarn) > 10*time.Second {
		l.log.Warn("frame not read", "frame", at.Index, "err", err)
		l.lastWarn = time.Now()
	}
	return nil
}

// Read measures a frame read: its stages, and its latency from capture to
// its results queued.
func (l *live) Read(at driver.At, f driver.Frame, seen vision.Frame) error {
	tm := at.Pipeline.Timings()
	l.met.vision.Observe(tm.Vision.Seconds())
	l.met.tracker.Observe(tm.Tracker.Seconds())
	l.met.reconcile.Observe(tm.Reconcile.Seconds())
	l.met.frames.Inc()
	latency := time.Since(f.Time)
	l.met.latency.Observe(latency.Seconds())
	l.stats.frame(latency, f.Dropped, tm)
	return nil
}

// Results writes evidence for each alert, then publishes the records. A
// record that cannot be queued (a disk that has refused so many records
// that no more can wait in memory) is logged as an error with the whole
// record, so that it is still in the log.
func (l *live) Results(ctx context.Context, now driver.At, results []pipeline.Result) error {
	pl := now.Pipeline
	for _, res := range results {
		at := moment(res.Round, now.Index, now.T, now.FPS)
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
		// Alerts are counted as the broker acknowledges them (metrics.sent).
		if res.Rebuilt() {
			l.met.rounds.Inc()
		}
		for _, a := range res.Alerts {
			printAlert(l.stdout, a)
		}
	}
	l.jn.settle(pl, results)
	return nil
}
