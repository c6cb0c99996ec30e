package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"time"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/capture"
	"bjmonitor/controller"
	"bjmonitor/pipeline"
	"bjmonitor/vision"
)

// Source delivers a table's frames in order: *capture.Capture (a camera,
// a stream) and *capture.File (a recorded video) are sources.
type Source interface {
	// Next waits for the next frame, puts its picture into dst (the
	// caller's) unless it says Grabbed, and describes it. A source that
	// has ended returns io.EOF.
	Next(ctx context.Context, dst *gocv.Mat) (capture.Info, error)
	// FPS is the frame rate the source reports, 0 when it says none; it
	// is asked at the first frame.
	FPS() float64
}

var (
	_ Source = (*capture.Capture)(nil)
	_ Source = (*capture.File)(nil)
)

// Frame is a frame from the source: its description, and its picture,
// the driver's, valid during the call it is handed to. A frame that says
// Grabbed has no picture: Mat holds an older one.
type Frame struct {
	capture.Info
	Mat gocv.Mat
}

// At is where the driver stands when it calls the sink: the frame's
// number (from 0) and video time in seconds, the frame rate, and the
// pipeline, for the sink to look at (its calibration, the round being
// rebuilt, the last frame's timings and readings), never to feed.
type At struct {
	Index    int
	T        float64
	FPS      float64
	Pipeline *pipeline.Pipeline
}

// Sink is what the driver hands its results to. A sink's error ends Run
// with that error.
type Sink interface {
	// Frame is called for every frame, once the controller's events due
	// by it are applied, and before it is read; at.Pipeline is open.
	Frame(at At, f Frame) error
	// Unread is called when the pipeline could not read a frame: the
	// camera could not be calibrated (calibration.ErrCalibration), or the
	// frame was unusable. Return nil to go on with the next frame.
	Unread(at At, f Frame, err error) error
	// Results is called with the rounds that finished: at a controller
	// event, at a frame, or at the end.
	Results(ctx context.Context, at At, res []pipeline.Result) error
	// Read is called with what vision saw in each frame read, after the
	// rounds it finished were handed to Results.
	Read(at At, f Frame, seen vision.Frame) error
}

// Config is how a driver runs.
type Config struct {
	// Open opens the pipeline for a frame rate. The driver calls it at
	// the first frame, and closes the pipeline when Run returns.
	Open func(fps float64) (*pipeline.Pipeline, error)
	// FPS is the frame rate; 0 takes the source's.
	FPS float64
	// GuessFPS is taken, with a warning, when neither FPS nor the source
	// gives a frame rate the pipeline can time; 0 makes that an error.
	GuessFPS float64
	// AnalysisFPS caps the frames read for cards (vision.analysis_fps);
	// 0 reads every frame.
	AnalysisFPS float64
	// Idle, when set, is how long Run waits for a frame before it applies
	// the controller's events by the wall clock, so that a round that
	// ends while the camera is away is still judged.
	Idle time.Duration
	// WallClock keeps video time level with the wall clock across an
	// outage of the source (a frame that says Reconnected).
	WallClock bool
	// MaxPending bounds the events held until their time; beyond it the
	// earliest are applied at once. 0 holds any number (a replay's whole
	// log).
	MaxPending int
	// Drain: when ctx ends, Run applies every event held, judges the
	// round in play with what was seen, and returns nil (a live monitor
	// stopped by a signal). Without it Run returns ctx's error.
	Drain bool
	// Log gets the driver's warnings; nil logs nowhere.
	Log *slog.Logger
}

// ErrNoFrame is returned by Run when the source ended before its first
// frame.
var ErrNoFrame = errors.New("no frame could be read")

// Driver runs the frame loop. Put may be called from any goroutine; Run
// from one, once.
type Driver struct {
	cfg   Config
	sink  Sink
	inbox inbox
	// Set by Run.
	src       Source
	pl        *pipeline.Pipeline
	q         queue
	pick      *Sampler
	fps       float64
	offset    float64 // video time lost to outages of the source
	index     int     // the last frame's number and video time
	t         float64
	lastFrame time.Time                // the wall time the last frame was read
	viewed    *calibration.Calibration // the last calibration whose zones out of view were logged
}

// New returns a driver that hands its results to sink.
func New(cfg Config, sink Sink) *Driver {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Driver{cfg: cfg, sink: sink, q: queue{max: cfg.MaxPending}}
}

// Put takes a controller event. It is applied before the first frame at
// or after its time: t is in seconds from the first frame; ts is wall
// time (a controller clock running ahead is trusted for MaxEarly at
// most); an event with neither is applied as it arrives.
func (d *Driver) Put(e controller.Event) { d.inbox.put(e) }

// Held is the number of controller events put and not yet applied: in
// the inbox, or held until their time. The sink may call it; nothing else
// but Run's goroutine may.
func (d *Driver) Held() int { return d.inbox.len() + len(d.q.pending) }

// Run reads the source until it ends (the round in play is then judged
// with what was seen; events still held lie past the last frame and are
// left), or ctx ends (see Config.Drain), or the source or the sink fails.
// The first frame opens the pipeline and calibrates the camera; a frame
// that says Reconnected calibrates it again. Video time is a frame's
// number over the frame rate.
func (d *Driver) Run(ctx context.Context, src Source) error {
	d.src = src
	mat := gocv.NewMat()
	defer mat.Close()
	defer func() {
		if d.pl != nil {
			d.pl.Close()
		}
	}()
	for {
		info, err := d.next(ctx, &mat)
		switch {
		case ctx.Err() != nil:
			return d.stop(ctx)
		case errors.Is(err, context.DeadlineExceeded):
			if err := d.idle(ctx); err != nil {
				return err
			}
			continue
		case errors.Is(err, io.EOF):
			return d.end(ctx)
		case err != nil:
			return err
		}
		if err := d.frame(ctx, Frame{info, mat}); err != nil {
			return err
		}
	}
}

// next waits for the next frame, at most Config.Idle once the pipeline is
// open.
func (d *Driver) next(ctx context.Context, mat *gocv.Mat) (capture.Info, error) {
	if d.cfg.Idle <= 0 {
		return d.src.Next(ctx, mat)
	}
	nctx, cancel := context.WithTimeout(ctx, d.cfg.Idle)
	defer cancel()
	return d.src.Next(nctx, mat)
}

// open opens the pipeline; the first frame, read at start, sets the clock
// and the frame rate.
func (d *Driver) open(start time.Time) error {
	d.q.start, d.lastFrame = start, start
	if d.fps = d.cfg.FPS; d.fps == 0 {
		d.fps = d.src.FPS()
	}
	if !pipeline.ValidFPS(d.fps) {
		if d.cfg.GuessFPS == 0 {
			return fmt.Errorf("the source reports %v frames a second; cannot time it", d.fps)
		}
		d.cfg.Log.Warn(fmt.Sprintf("the source does not say its frame rate; taking %v (set live.fps)", d.cfg.GuessFPS), "reported", d.fps)
		d.fps = d.cfg.GuessFPS
	}
	pl, err := d.cfg.Open(d.fps)
	if err != nil {
		return err
	}
	d.pl, d.pick = pl, NewSampler(d.fps, d.cfg.AnalysisFPS)
	return nil
}

// at is where the driver stands at frame index, video time t.
func (d *Driver) at(index int, t float64) At {
	return At{Index: index, T: t, FPS: d.fps, Pipeline: d.pl}
}

// frame applies the events due by a frame, then reads it if it is one to
// read.
func (d *Driver) frame(ctx context.Context, f Frame) error {
	if d.pl == nil {
		if err := d.open(f.Time); err != nil {
			return err
		}
	}
	index := int(f.Seq - 1)
	if f.Reconnected {
		d.cfg.Log.Info("the camera is back: calibrating again")
		d.pl.Recalibrate()
		if d.cfg.WallClock {
			if gap := f.Time.Sub(d.q.start).Seconds() - (float64(index)/d.fps + d.offset); gap > 0 {
				d.offset += gap
			}
		}
	}
	t := float64(index)/d.fps + d.offset
	d.index, d.t, d.lastFrame = index, t, f.Time
	if err := d.events(ctx, index, t); err != nil {
		return err
	}
	at := d.at(index, t)
	if err := d.sink.Frame(at, f); err != nil {
		return err
	}
	if f.Grabbed || !d.pick.Take(index) {
		return nil // not one to read (vision.analysis_fps)
	}
	seen, res, err := d.pl.Frame(f.Mat, index, t)
	if err != nil {
		return d.sink.Unread(at, f, err)
	}
	if c := d.pl.Calibration(); c != d.viewed {
		d.warnOutOfView(c) // after each calibration: the camera may have moved
		d.viewed = c
	}
	if err := d.sink.Results(ctx, at, res); err != nil {
		return err
	}
	return d.sink.Read(at, f, seen)
}

// warnOutOfView logs the zones the camera does not wholly see: a card
// there, a split hand laid out past the picture's edge, goes unseen, and
// its hand's alerts go out for review.
func (d *Driver) warnOutOfView(c *calibration.Calibration) {
	for _, z := range c.ZonesOutsidePicture() {
		d.cfg.Log.Warn("a zone lies partly outside the camera's picture, where cards cannot be read: widen or move the camera",
			"zone", z.Name, "outside", fmt.Sprintf("%.0f%%", 100*z.Share))
	}
}

// events applies the controller's events due by video time t, at frame
// index: those within half a frame of it count as due.
func (d *Driver) events(ctx context.Context, index int, t float64) error {
	d.q.add(d.inbox.take(), t)
	for _, e := range d.q.due(t + 0.5/d.fps) {
		if res := d.pl.Event(e, index); len(res) > 0 {
			if err := d.sink.Results(ctx, d.at(index, t), res); err != nil {
				return err
			}
		}
	}
	return nil
}

// idle applies the events due by the wall clock while no frame comes.
func (d *Driver) idle(ctx context.Context) error {
	if d.pl == nil {
		return nil
	}
	return d.events(ctx, d.index, d.t+time.Since(d.lastFrame).Seconds())
}

// end judges the round in play at the source's end.
func (d *Driver) end(ctx context.Context) error {
	if d.pl == nil {
		return ErrNoFrame
	}
	return d.flush(ctx)
}

func (d *Driver) flush(ctx context.Context) error {
	if res := d.pl.Flush(); len(res) > 0 {
		return d.sink.Results(ctx, d.at(d.index, d.t), res)
	}
	return nil
}

// stop ends a run whose ctx ended. With Config.Drain it applies every
// event still held, then judges the round in play with what was seen, so
// that no entry goes unjudged (the round's doubt says the monitor
// stopped); a driver that never saw a frame opens the pipeline for this.
func (d *Driver) stop(ctx context.Context) error {
	if !d.cfg.Drain {
		return ctx.Err()
	}
	ctx = context.WithoutCancel(ctx)
	if d.pl == nil {
		if len(d.q.pending) == 0 && d.inbox.empty() {
			return nil
		}
		if err := d.open(time.Now()); err != nil {
			return err
		}
	}
	if err := d.events(ctx, d.index, math.Inf(1)); err != nil {
		return err
	}
	return d.flush(ctx)
}
