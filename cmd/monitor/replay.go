package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"time"

	"github.com/spf13/pflag"

	"bjmonitor/alerts"
	"bjmonitor/calibration"
	"bjmonitor/capture"
	"bjmonitor/controller"
	"bjmonitor/driver"
	"bjmonitor/pipeline"
	"bjmonitor/vision"
)

// replayUsage is the synopsis of monitor replay; --help lists the flags under it.
const replayUsage = "monitor replay VIDEO [--events LOG] [--config FILE] [--out results.jsonl] [--annotate out.mp4] [--publish] [--evidence]"

// runReplay runs the whole pipeline on a recorded video: calibration,
// vision, tracker, evaluator and reconciliation with the controller log.
func (m *Main) runReplay(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("replay", pflag.ContinueOnError)
	events := fs.String("events", "", "the table controller's log (JSON lines)")
	configPath := fs.String("config", "", "configuration file (YAML)")
	out := fs.String("out", "", "write rounds, outcomes and alerts here (JSON lines)")
	annotate := fs.String("annotate", "", "write an annotated video here (.mp4)")
	quiet := fs.Bool("quiet", false, "print no alerts, only the summary")
	fs.String("table", "", "table file (default: table.calibration)")
	fs.String("model", "", "card index model (default: vision.model)")
	publishTo := fs.Bool("publish", false, "also publish the results to mqtt.broker, under mqtt.replay_prefix")
	fs.String("broker", "", "MQTT broker for --publish (default: mqtt.broker)")
	publishWait := fs.Duration("publish-wait", 2*time.Minute, "with --publish, how long to wait at the end for the broker to take every result")
	withEvidence := fs.Bool("evidence", false, "write each alert's snapshot and clip under evidence.dir, as live does (with --publish, also send them to the consoles)")
	if err := m.parseFlags(fs, replayUsage, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(m.Stderr, "usage:", replayUsage)
		return errUsage
	}
	cfg, err := loadVideoConfig(*configPath, fs, map[string]string{"table.calibration": "table", "vision.model": "model", "mqtt.broker": "broker"})
	if err != nil {
		return err
	}
	r := &replay{m: m, cfg: cfg, quiet: *quiet, log: cfg.Logger(m.Stderr)}
	if *events != "" {
		if err := r.readEvents(*events); err != nil {
			return err
		}
	}
	var jsonl io.Writer
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		bw := bufio.NewWriter(f)
		defer bw.Flush()
		jsonl = bw
	}
	var pub *replayPublisher
	if *publishTo {
		if pub, err = r.openPublisher(ctx, fs.Arg(0)); err != nil {
			return err
		}
	}
	if *withEvidence {
		if err := r.openEvidence(ctx, pub); err != nil {
			return err
		}
	}
	r.out = newResults(cfg.Table.ID, jsonl, pub.publisher(), r.log)
	err = r.run(ctx, fs.Arg(0), *annotate)
	r.closeEvidence(ctx)
	r.summary()
	if pub != nil {
		if cerr := pub.finish(ctx, *publishWait); err == nil {
			err = cerr
		}
	}
	return err
}

type replay struct {
	m     *Main
	cfg   Config
	quiet bool
	log   *slog.Logger

	events    []controller.Event
	malformed int
	unknown   int
	repeated  int
	// unkeptMeter counts meter readings for a bet with no meter.
	unkeptMeter int
	// lateEnds counts game_ends for a round judged already, which the
	// pipeline skips.
	lateEnds int

	out     *results
	inspect *inspector      // monitor inspect: show what vision read
	ev      *replayEvidence // --evidence
	ann     *annotator      // the annotated video; nil for none
	bar     *progress

	// Set by run.
	fps       float64
	step      int // one frame in step is read
	total     int // frames the video announces
	frames    int
	took      time.Duration
	truncated string
}

// readEvents reads the controller log. A malformed line, an unknown
// event type, a repeated event (a seq seen before) or a meter reading for
// a bet with no meter (unkeptMeter) is logged, counted and skipped: the rest of the log stands.
func (r *replay) readEvents(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("controller log: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	var dedup controller.Dedup
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		e, err := controller.Parse(b)
		if err != nil {
			if errors.Is(err, controller.ErrUnknownType) {
				r.unknown++
			} else {
				r.malformed++
			}
			r.log.Warn("controller log: line skipped", "file", path, "line", line, "err", err)
			continue
		}
		if e.T == nil {
			r.malformed++
			r.log.Warn("controller log: line skipped: replay needs t, seconds from the first frame", "file", path, "line", line)
			continue
		}
		if unkeptMeter(e) {
			r.unkeptMeter++
			r.log.Warn("controller log: line skipped: a meter reading for a bet with no meter (blazing7s is the one kept)", "file", path, "line", line, "bet", e.Bet)
			continue
		}
		if dedup.Repeat(e) {
			r.repeated++
			r.log.Info("controller log: line skipped: it repeats seq", "file", path, "line", line, "seq", e.Seq)
			continue
		}
		r.events = append(r.events, e)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("controller log %s: %w", path, err)
	}
	controller.SortByTime(r.events)
	return nil
}

// run replays the video at path through the frame loop, with r as its
// sink.
func (r *replay) run(ctx context.Context, path, annotatePath string) error {
	start := time.Now()
	defer func() { r.took = time.Since(start) }()
	table, err := calibration.Load(r.cfg.Table.Calibration)
	if err != nil {
		return err
	}
	src, err := r.openVideo(path)
	if err != nil {
		return err
	}
	defer src.Close()
	pick := driver.NewSampler(r.fps, r.cfg.Vision.AnalysisFPS)
	r.step, r.total = pick.Step(), src.Announced()
	src.Start(ctx, pick.Take)
	if annotatePath != "" {
		r.ann = newAnnotator(annotatePath, r.fps/float64(r.step))
		defer func() {
			if err := r.ann.Close(); err != nil {
				r.log.Error("annotated video", "err", err)
			}
		}()
	}
	if r.m.Terminal {
		r.bar = newProgress(r.m.Stderr, "replay", "frames")
	}
	d := driver.New(driver.Config{Open: r.opener(table), AnalysisFPS: r.cfg.Vision.AnalysisFPS, Log: r.log}, r)
	for _, e := range r.events {
		d.Put(e)
	}
	switch err := d.Run(ctx, src); {
	case errors.Is(err, driver.ErrNoFrame):
		return fmt.Errorf("the video %s has no frame that could be read", path)
	case err != nil:
		return err
	}
	r.bar.Done()
	if n := src.Decoded(); r.total > 0 && n < r.total-1 {
		r.truncated = fmt.Sprintf("the video ended at frame %d of the %d it announces (truncated or corrupt); every result up to there is kept", r.frames, r.total)
	}
	return nil
}

// openVideo opens the video and reads its frame rate into r.fps, which
// must be one the replay can time. The caller closes the file.
func (r *replay) openVideo(path string) (*capture.File, error) {
	src, err := capture.OpenFile(path)
	if err != nil {
		return nil, err
	}
	if r.fps = src.FPS(); !pipeline.ValidFPS(r.fps) {
		src.Close()
		return nil, fmt.Errorf("the video %s reports %v frames a second; cannot time it", path, r.fps)
	}
	return src, nil
}

// opener opens the stages with the configured rules, pay tables and
// meter.
func (r *replay) opener(table *calibration.Table) func(fps float64) (*pipeline.Pipeline, error) {
	return func(fps float64) (*pipeline.Pipeline, error) {
		pc, err := pipelineConfig(r.cfg, table, fps)
		if err != nil {
			return nil, err
		}
		pc.Controlled = len(r.events) > 0
		pc.WrapReader = r.m.wrapReader
		pc.LateEnd = func(round string) {
			r.lateEnds++
			r.log.Info("controller log: game_end skipped: its round was judged already", "round", round)
		}
		return pipeline.New(pc)
	}
}

// Frame counts every frame, and ends an inspection past its last frame.
func (r *replay) Frame(at driver.At, f driver.Frame) error {
	if r.inspect != nil && !f.Grabbed && at.Index > r.inspect.to {
		return errInspected
	}
	r.frames = at.Index + 1
	r.bar.Update(r.frames, max(r.total, r.frames))
	if !f.Grabbed {
		r.evidenceFrame(f.Mat, at)
	}
	return nil
}

// Unread stops the replay: a recorded video whose first frame cannot be
// calibrated will not calibrate later.
func (r *replay) Unread(at driver.At, f driver.Frame, err error) error {
	if errors.Is(err, calibration.ErrCalibration) {
		return fmt.Errorf("calibrating on the first frame: %w", err)
	}
	return err
}

// Read shows what vision read, to inspect, and draws the frame into the
// annotated video.
func (r *replay) Read(at driver.At, f driver.Frame, seen vision.Frame) error {
	if r.inspect != nil && at.Index >= r.inspect.from {
		if err := r.inspect.frame(f.Mat, at, seen); err != nil {
			return err
		}
	}
	if r.ann != nil {
		return r.ann.Frame(f.Mat, seen, at.Pipeline)
	}
	return nil
}

// Results writes finished rounds' records and prints their alerts. The
// annotated video shows alerts once the camera is calibrated.
func (r *replay) Results(ctx context.Context, at driver.At, results []pipeline.Result) error {
	for _, res := range results {
		r.saveEvidence(at, res)
		if err := r.out.write(ctx, res); err != nil {
			return err
		}
		for _, a := range res.Alerts {
			if !r.quiet {
				printAlert(r.m.Stdout, a)
			}
			if r.ann != nil && at.Pipeline.Calibration() != nil {
				r.ann.Alert(a)
			}
		}
	}
	return nil
}

// printAlert prints an alert as one line, for a person watching the
// monitor's output: replay and live print the same.
func printAlert(w io.Writer, a alerts.Alert) {
	fmt.Fprintf(w, "ALERT %s [%s] round %s seat %d %s at %s: %s\n", a.Kind, a.Severity, a.Round, a.Seat, a.Bet, clock(a.Time), a.Detail)
}

// clock writes video time s as minutes and seconds, 1:02.5.
func clock(s float64) string {
	m := int(s) / 60
	return fmt.Sprintf("%d:%04.1f", m, s-float64(m*60))
}

func (r *replay) summary() {
	if r.took == 0 {
		return
	}
	secs := float64(r.frames) / math.Max(r.fps, 1)
	n := r.out.alerts
	fmt.Fprintf(r.m.Stderr, "replay: %d frames (%.1f s of video) in %.1f s, %.1f× real time; %d rounds, %d alerts",
		r.frames, secs, r.took.Seconds(), secs/math.Max(r.took.Seconds(), 1e-9), r.out.rounds, n)
	if r.malformed+r.unknown > 0 {
		fmt.Fprintf(r.m.Stderr, "; controller log: %d malformed lines and %d of unknown type skipped", r.malformed, r.unknown)
	}
	if r.repeated > 0 {
		fmt.Fprintf(r.m.Stderr, "; controller log: %d repeated events (seq seen before) skipped", r.repeated)
	}
	if r.unkeptMeter > 0 {
		fmt.Fprintf(r.m.Stderr, "; controller log: %d meter readings for a bet with no meter skipped", r.unkeptMeter)
	}
	if r.lateEnds > 0 {
		fmt.Fprintf(r.m.Stderr, "; controller log: %d game_ends for a round judged already skipped", r.lateEnds)
	}
	fmt.Fprintln(r.m.Stderr)
	if r.truncated != "" {
		fmt.Fprintln(r.m.Stderr, "replay:", r.truncated)
	}
}
