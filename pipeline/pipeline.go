// Package pipeline runs one table's stages in order: calibration, vision,
// tracker, evaluator and reconciliation. It is fed frame by frame with the
// controller's events in between (package driver, the frame loop that
// replay, live and inspect share), and gives back each finished round with
// its outcomes and alerts.
//
// Usage:
//
//	p, err := pipeline.New(cfg)
//	if err != nil {
//		return err
//	}
//	defer p.Close()
//	for each frame {
//		for each controller event due by now {
//			results = append(results, p.Event(e, index)...)
//		}
//		obs, res, err := p.Frame(mat, index, t)
//		...
//	}
//	results = append(results, p.Flush()...)
//
// A Pipeline is not safe for concurrent use: one goroutine feeds it.
package pipeline

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"gocv.io/x/gocv"

	"bjmonitor/alerts"
	"bjmonitor/calibration"
	"bjmonitor/controller"
	"bjmonitor/evaluator"
	"bjmonitor/game"
	"bjmonitor/tracker"
	"bjmonitor/vision"
	"bjmonitor/vision/classify"
)

// Config is what a pipeline needs to know of its table.
type Config struct {
	// Table is the table file: marks and zones.
	Table *calibration.Table
	// Model is the card index model file (ONNX).
	Model string
	// FastModel, when set, reads every crop first, and Model only those
	// it reads below RecheckBelow (classify.Cascade).
	FastModel    string
	RecheckBelow float64
	// Deck, when set, is the table's own deck file (monitor enroll): its
	// index templates decide the card wherever they are clear, and the
	// model reads the rest (classify.Enrolled).
	Deck string
	// FPS is the video's frame rate; it sets the tracker's timings.
	FPS float64
	// Controlled: the controller's game_start and game_end mark rounds, so
	// a cleared table ends nothing.
	Controlled bool
	Rules      game.Rules
	// Reconcile configures reconciliation; its FPS is set from FPS.
	Reconcile alerts.Config
	// Meter is the progressive meter the monitor keeps; the pipeline
	// advances it.
	Meter *evaluator.Meter
	// Vision tunes the detector; the zero value means vision.DefaultOptions.
	Vision vision.Options
	// Doubts, when set, is asked for what outside the picture makes a
	// finished round doubtful (the live monitor: a gap in its broker
	// connection, during which controller entries may have been lost),
	// before the round is judged; any doubt sends its alerts for review.
	Doubts func(tracker.Round) []string
	// WrapReader, when set, is handed the reader the pipeline opened
	// (Model, FastModel) and returns the reader vision uses: one that
	// sees, or changes, every reading of a corner crop.
	WrapReader func(vision.Reader) vision.Reader
}

// Result is one finished round: the round as rebuilt, the outcome of every
// wager on it, and the alerts raised.
type Result struct {
	Round    tracker.Round
	Outcomes []evaluator.Outcome
	Alerts   []alerts.Alert
}

// Timings is how long each stage took on the last frame.
type Timings struct {
	Vision, Tracker, Reconcile time.Duration
}

// model reads corner crops: a classify.Classifier, a classify.Cascade of
// two, or either wrapped in a table's enrolled deck (classify.Enrolled).
type model interface {
	vision.Reader
	Close() error
}

// Pipeline is one table's stages. It owns the detector and the classifier
// it opens: Close releases them.
type Pipeline struct {
	cfg Config
	cal *calibration.Calibration
	clf model
	det *vision.Detector
	trk *tracker.Tracker
	rec *alerts.Reconciler
	// entries holds each round's controller events, by round id, until
	// the round is reconciled.
	entries map[string][]controller.Event
	order   []string // entries' round ids, oldest first
	current string
	last    Timings
	cutter  *classify.Cropper // made by the first CutCrop
	// DroppedEvents counts controller events dropped because their round
	// never ended while many later ones did.
	DroppedEvents int
}

// The frame rates the pipeline can time: the tracker counts frames a card
// must lie still, and a camera or a video outside this range is broken or
// mislabelled.
const (
	MinFPS = 1
	MaxFPS = 240
)

// ValidFPS reports whether fps is a frame rate the pipeline can time.
func ValidFPS(fps float64) bool { return fps >= MinFPS && fps <= MaxFPS }

// New checks the configuration and opens the model. Calibration waits for
// the first frame.
func New(cfg Config) (*Pipeline, error) {
	switch {
	case cfg.Table == nil:
		return nil, errors.New("pipeline: no table file")
	case !ValidFPS(cfg.FPS):
		return nil, fmt.Errorf("pipeline: %v frames a second: want %v to %v", cfg.FPS, MinFPS, MaxFPS)
	case cfg.Meter == nil:
		return nil, errors.New("pipeline: no progressive meter")
	}
	if cfg.Vision == (vision.Options{}) {
		cfg.Vision = vision.DefaultOptions()
	}
	var clf model
	var err error
	if cfg.FastModel != "" {
		clf, err = classify.OpenCascade(cfg.FastModel, cfg.Model, cfg.RecheckBelow)
	} else {
		clf, err = classify.Open(cfg.Model)
	}
	if err != nil {
		return nil, err
	}
	if cfg.Deck != "" {
		if clf, err = enrolled(clf, cfg.Deck); err != nil {
			return nil, err
		}
	}
	tcfg := tracker.DefaultConfig(cfg.FPS)
	tcfg.Controlled = cfg.Controlled
	rc := cfg.Reconcile
	rc.FPS = cfg.FPS
	return &Pipeline{
		cfg:     cfg,
		clf:     clf,
		trk:     tracker.New(tcfg, cfg.Table, cfg.Rules),
		rec:     alerts.NewReconciler(rc, cfg.Meter),
		entries: map[string][]controller.Event{},
	}, nil
}

// enrolled wraps clf in the enrolled deck at path; it closes clf when it
// fails.
func enrolled(clf model, path string) (model, error) {
	d, err := classify.LoadDeck(path)
	if err != nil {
		clf.Close()
		return nil, err
	}
	return classify.NewEnrolled(clf, d, classify.DefaultMatchOptions())
}

// Close releases the detector, the model and the cropper. Safe to call
// twice.
func (p *Pipeline) Close() error {
	if p.det != nil {
		p.det.Close()
		p.det = nil
	}
	if p.clf != nil {
		p.clf.Close()
		p.clf = nil
	}
	if p.cutter != nil {
		p.cutter.Close()
		p.cutter = nil
	}
	return nil
}

// Calibration is the camera's calibration, or nil before the first frame
// that calibrated.
func (p *Pipeline) Calibration() *calibration.Calibration { return p.cal }

// Recalibrate makes the next frame calibrate the camera afresh and every
// zone be read again, as after the camera reconnects (it may have moved).
// The rounds being rebuilt carry on.
func (p *Pipeline) Recalibrate() {
	if p.det != nil {
		p.det.Close()
		p.det = nil
	}
	p.cal = nil
}

// Timings says how long each stage took on the last frame.
func (p *Pipeline) Timings() Timings { return p.last }

// Snapshot is the round being rebuilt, as it stands.
func (p *Pipeline) Snapshot() (tracker.Round, bool) { return p.trk.Snapshot() }

// Event takes one controller event, due at frame. game_start and game_end
// mark rounds; every other event is kept for its round's reconciliation (a
// meter reading, which names no round, goes with the round in play).
func (p *Pipeline) Event(e controller.Event, frame int) []Result {
	switch e.Type {
	case controller.GameStart:
		done := p.finish(p.trk.StartRound(e.Round, frame))
		p.current = e.Round
		return done
	case controller.GameEnd:
		rd, ok := p.trk.EndRound(frame)
		if !ok {
			if len(p.entries[e.Round]) == 0 {
				return nil
			}
			// Wagers were entered on a round the monitor never saw
			// start (it started, or the camera came back, during the
			// round): they are judged as unread, never dropped.
			rd = tracker.Round{ID: e.Round, StartFrame: frame, EndFrame: frame,
				Doubts: []string{"the monitor did not see this round start; its cards were not tracked"}}
		}
		if rd.ID == "" {
			rd.ID = e.Round
		}
		return p.finish([]tracker.Round{rd})
	}
	id := e.Round
	if id == "" {
		id = p.current
	}
	if _, ok := p.entries[id]; !ok && len(p.entries) >= maxPending {
		// Rounds that never ended (a lost game_end) must not pile up
		// over months: the oldest one's entries go, counted.
		p.dropOldest()
	}
	if _, ok := p.entries[id]; !ok {
		p.order = append(p.order, id)
	}
	p.entries[id] = append(p.entries[id], e)
	return nil
}

// maxPending bounds the rounds whose controller events wait for the round
// to finish.
const maxPending = 16

func (p *Pipeline) dropOldest() {
	for len(p.order) > 0 {
		id := p.order[0]
		p.order = p.order[1:]
		if es, ok := p.entries[id]; ok {
			p.DroppedEvents += len(es)
			delete(p.entries, id)
			return
		}
	}
}

// Frame reads one frame (8-bit BGR, the calibrated size) at video time t
// seconds. The first frame calibrates the camera. When that fails, the error
// is calibration.Solve's, which wraps calibration.ErrCalibration and says
// what was wrong (the marks not found); the pipeline stays uncalibrated and
// the next frame tries again, so a live monitor may go on feeding frames (a
// hand over a mark passes) while a replay gives up. It returns what vision
// saw and any round that finished.
func (p *Pipeline) Frame(mat gocv.Mat, index int, t float64) (vision.Frame, []Result, error) {
	if p.det == nil {
		if err := p.calibrate(mat); err != nil {
			return vision.Frame{}, nil, err
		}
	}
	t0 := time.Now()
	obs, err := p.det.Detect(mat, index, t)
	if err != nil {
		return vision.Frame{}, nil, err
	}
	t1 := time.Now()
	rounds := p.trk.Observe(obs)
	t2 := time.Now()
	res := p.finish(rounds)
	p.last = Timings{Vision: t1.Sub(t0), Tracker: t2.Sub(t1), Reconcile: time.Since(t2)}
	return obs, res, nil
}

func (p *Pipeline) calibrate(mat gocv.Mat) error {
	if p.cal == nil {
		cal, err := calibration.Solve(mat, p.cfg.Table)
		if err != nil {
			return err
		}
		p.cal = cal
	}
	var reader vision.Reader = p.clf
	if p.cfg.WrapReader != nil {
		reader = p.cfg.WrapReader(reader)
	}
	det, err := vision.NewDetector(p.cal, reader, p.cfg.Vision)
	if err != nil {
		return err
	}
	p.det = det
	return nil
}

// Readings returns the card corners the detector read in the last frame
// (vision.Detector.Readings); none before the camera is calibrated.
func (p *Pipeline) Readings() []vision.Reading {
	if p.det == nil {
		return nil
	}
	return p.det.Readings()
}

// CutCrop cuts, from the frame src that was read, the crop of one of its
// readings into dst, as the detector cut it for the model.
func (p *Pipeline) CutCrop(src gocv.Mat, r vision.Reading, dst *gocv.Mat) error {
	if p.cutter == nil {
		p.cutter = classify.NewCropper()
	}
	return p.cutter.Cut(src, r.Crop, dst)
}

// Flush closes the round still open, at the end of the video or on
// shutdown, and reconciles it.
func (p *Pipeline) Flush() []Result { return p.finish(p.trk.Flush()) }

// Pending is the number of rounds whose controller events wait for the
// round to finish.
func (p *Pipeline) Pending() int { return len(p.entries) }

func (p *Pipeline) finish(rounds []tracker.Round) []Result {
	if len(rounds) == 0 {
		return nil
	}
	out := make([]Result, 0, len(rounds))
	for _, rd := range rounds {
		if p.cfg.Doubts != nil {
			rd.Doubts = append(rd.Doubts, p.cfg.Doubts(rd)...)
		}
		outcomes, found := p.rec.Round(rd, p.entries[rd.ID])
		delete(p.entries, rd.ID)
		p.order = slices.DeleteFunc(p.order, func(id string) bool { return id == rd.ID })
		out = append(out, Result{Round: rd, Outcomes: outcomes, Alerts: found})
	}
	return out
}
