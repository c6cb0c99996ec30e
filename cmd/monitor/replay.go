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
	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/controller"
	"bjmonitor/pipeline"
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

	// Set up by run: the table file, the stages (made at the first frame),
	// the annotated video if asked for, and the next controller event due.
	table        *calibration.Table
	annotatePath string
	pl           *pipeline.Pipeline
	ann          *annotator
	next         int
	viewed       *calibration.Calibration // the calibration whose zones out of view were logged

	out       *results
	ev        *replayEvidence // --evidence
	inspect   *inspector      // monitor inspect: show what vision read
	fps       float64
	step      int // one frame in step is read
	frames    int
	took      time.Duration
	truncated string
}

// readEvents reads the controller log. A malformed line or an unknown
// event type is logged, counted and skipped: the rest of the log stands.
func (r *replay) readEvents(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("controller log: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
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
		r.events = append(r.events, e)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("controller log %s: %w", path, err)
	}
	controller.SortByTime(r.events)
	return nil
}

// frame is a decoded frame travelling from the decoder to the pipeline:
// its number, and the picture if it is to be read (vision.analysis_fps).
type frame struct {
	mat   gocv.Mat
	index int
	read  bool
}

func (r *replay) run(ctx context.Context, path, annotatePath string) error {
	start := time.Now()
	defer func() { r.took = time.Since(start) }()
	r.annotatePath = annotatePath
	var err error
	if r.table, err = calibration.Load(r.cfg.Table.Calibration); err != nil {
		return err
	}
	vc, err := r.openVideo(path)
	if err != nil {
		return err
	}
	defer vc.Close()
	total := int(vc.Get(gocv.VideoCaptureFrameCount))

	// Decode on a goroutine of its own, into a pool of frames, so that
	// decoding and reading cards overlap: most frames cost the pipeline
	// little, a few (cards dealt) much, and the pool lets the decoder run
	// ahead through those. A frame sent on full belongs to the pipeline
	// until it is sent back on free.
	pool := framePool(int(vc.Get(gocv.VideoCaptureFrameWidth)), int(vc.Get(gocv.VideoCaptureFrameHeight)))
	free := make(chan gocv.Mat, pool)
	full := make(chan frame, pool)
	for range pool {
		free <- gocv.NewMat()
	}
	defer func() {
		close(free)
		for mat := range free {
			mat.Close()
		}
	}()
	dctx, stop := context.WithCancel(ctx)
	defer stop()
	pick := newSampler(r.fps, r.cfg.Vision.AnalysisFPS)
	r.step = pick.step
	decoded := make(chan int, 1)
	go decode(dctx, vc, pick, free, full, decoded)
	// However the replay ends, the decoder stops and is waited for before
	// its Mats are closed and the video with them: closing a VideoCapture
	// in the middle of a Read aborts FFmpeg.
	defer func() {
		stop()
		for f := range full {
			if f.read {
				free <- f.mat
			}
		}
	}()

	var bar *progress
	if r.m.Terminal {
		bar = newProgress(r.m.Stderr, "replay", "frames")
	}
	defer func() {
		if r.pl != nil {
			r.pl.Close()
		}
		if r.ann != nil {
			if err := r.ann.Close(); err != nil {
				r.log.Error("annotated video", "err", err)
			}
		}
	}()
	for f := range full {
		err := r.frame(ctx, f)
		if f.read {
			free <- f.mat
		}
		if err != nil {
			return err
		}
		r.frames = f.index + 1
		bar.Update(r.frames, max(total, r.frames))
	}
	bar.Done()
	n := <-decoded
	if r.pl == nil {
		return fmt.Errorf("the video %s has no frame that could be read", path)
	}
	if err := r.emit(ctx, r.pl.Flush()); err != nil {
		return err
	}
	if total > 0 && n < total-1 {
		r.truncated = fmt.Sprintf("the video ended at frame %d of the %d it announces (truncated or corrupt); every result up to there is kept", r.frames, total)
	}
	return nil
}

// openVideo opens the video and reads its frame rate into r.fps, which
// must be one the replay can time. The caller closes the capture.
func (r *replay) openVideo(path string) (*gocv.VideoCapture, error) {
	vc, err := gocv.VideoCaptureFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open the video %s: %v", path, err)
	}
	if !vc.IsOpened() {
		vc.Close()
		return nil, fmt.Errorf("cannot open the video %s", path)
	}
	r.fps = vc.Get(gocv.VideoCaptureFPS)
	if !(r.fps >= 1 && r.fps <= 240) {
		vc.Close()
		return nil, fmt.Errorf("the video %s reports %v frames a second; cannot time it", path, r.fps)
	}
	return vc, nil
}

// decode reads the video into frames on full until it ends or ctx is
// cancelled: a frame that pick takes is converted into a Mat from free,
// the others are only grabbed. It closes full, then sends the number of
// frames it decoded on decoded.
func decode(ctx context.Context, vc *gocv.VideoCapture, pick *sampler, free chan gocv.Mat, full chan<- frame, decoded chan<- int) {
	defer close(full)
	n := 0
	defer func() { decoded <- n }()
	for {
		f := frame{index: n}
		if pick.take(n) {
			select {
			case <-ctx.Done():
				return
			case f.mat = <-free:
			}
			if !vc.Read(&f.mat) || f.mat.Empty() {
				free <- f.mat
				return
			}
			f.read = true
		} else {
			// Decoded but not converted: the pipeline does not read
			// it, only its controller events are due.
			vc.Grab(1)
			if int(vc.Get(gocv.VideoCapturePosFrames)) <= n {
				return
			}
		}
		select {
		case full <- f:
			n++
		case <-ctx.Done():
			if f.read {
				free <- f.mat
			}
			return
		}
	}
}

// frame applies the controller events due by a decoded frame, then runs
// the frame through the pipeline if it is one to read. The first frame,
// always read, creates the pipeline (it calibrates the camera). The frame
// stays the caller's.
func (r *replay) frame(ctx context.Context, f frame) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if r.pl == nil {
		p, err := r.pipeline()
		if err != nil {
			return err
		}
		r.pl = p
	}
	t := float64(f.index) / r.fps
	for ; r.next < len(r.events) && *r.events[r.next].T <= t+0.5/r.fps; r.next++ {
		if err := r.emit(ctx, r.pl.Event(r.events[r.next], f.index)); err != nil {
			return err
		}
	}
	if !f.read {
		return nil
	}
	if r.inspect != nil && f.index > r.inspect.to {
		return errInspected
	}
	r.evidenceFrame(f.mat, f.index, t)
	obs, res, err := r.pl.Frame(f.mat, f.index, t)
	if err != nil {
		if errors.Is(err, calibration.ErrCalibration) {
			return fmt.Errorf("calibrating on the first frame: %w", err)
		}
		return err
	}
	if c := r.pl.Calibration(); c != r.viewed {
		warnOutOfView(r.log, c)
		r.viewed = c
	}
	if r.annotatePath != "" && r.ann == nil {
		a, err := newAnnotator(r.annotatePath, r.fps/float64(r.step), r.pl.Calibration(), f.mat.Cols(), f.mat.Rows())
		if err != nil {
			return err
		}
		a.hands = r.pl.Snapshot
		r.ann = a
	}
	if err := r.emit(ctx, res); err != nil {
		return err
	}
	if r.inspect != nil && f.index >= r.inspect.from {
		if err := r.inspect.frame(f.mat, f.index, t, obs, r.pl.Readings()); err != nil {
			return err
		}
	}
	if r.ann != nil {
		return r.ann.Frame(f.mat, obs)
	}
	return nil
}

// framePool is how many decoded frames of w×h may wait for the pipeline:
// some 100 MB of them, from 4 (4K) to 32.
func framePool(w, h int) int {
	const budget = 100 << 20
	if w <= 0 || h <= 0 {
		return 4
	}
	return min(32, max(4, budget/(w*h*3)))
}

// pipeline opens the stages with the configured rules, pay tables and
// meter.
func (r *replay) pipeline() (*pipeline.Pipeline, error) {
	pc, err := pipelineConfig(r.cfg, r.table, r.fps)
	if err != nil {
		return nil, err
	}
	pc.Controlled = len(r.events) > 0
	pc.WrapReader = r.m.wrapReader
	return pipeline.New(pc)
}

// emit writes finished rounds' records and prints their alerts.
func (r *replay) emit(ctx context.Context, results []pipeline.Result) error {
	for _, res := range results {
		r.saveEvidence(res)
		if err := r.out.write(ctx, res); err != nil {
			return err
		}
		for _, a := range res.Alerts {
			if !r.quiet {
				fmt.Fprintf(r.m.Stdout, "ALERT %s [%s] round %s seat %d %s at %s: %s\n", a.Kind, a.Severity, a.Round, a.Seat, a.Bet, clock(a.Time), a.Detail)
			}
			if r.ann != nil {
				r.ann.Alert(a)
			}
		}
	}
	return nil
}

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
	fmt.Fprintln(r.m.Stderr)
	if r.truncated != "" {
		fmt.Fprintln(r.m.Stderr, "replay:", r.truncated)
	}
}
