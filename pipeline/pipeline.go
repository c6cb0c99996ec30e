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
// The controller's events decide which round the cards belong to, but are
// not obeyed blindly: see Event.
//
// A Pipeline is not safe for concurrent use: one goroutine feeds it.
package pipeline

import (
	"errors"
	"fmt"
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
	// Deck, when set, is the table's own deck file (monitor enroll): it
	// decides the card wherever it clearly matches a corner, compared by
	// the features model at FeaturesModel, and the model reads the rest
	// (classify.Enrolled).
	Deck, FeaturesModel string
	// SuitsModel, when set and Vision.CountPips is, is the pip suit model
	// (classify.PipSuits): the pips counted, and an ace's single pip, are
	// read for their suit too (vision.Options.Suits).
	SuitsModel string
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
	// LateEnd, when set, is told of each game_end for a round judged
	// already (a re-send without seq, a second one), which is skipped.
	LateEnd func(round string)
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
	cfg   Config
	cal   *calibration.Calibration
	clf   model
	suits *classify.PipSuits // cfg.Vision.Suits, where SuitsModel is set
	det   *vision.Detector
	trk   *tracker.Tracker
	rec   *alerts.Reconciler
	// entries holds each round's controller events, by round id, until
	// the round is reconciled.
	entries map[string][]controller.Event
	order   []string // entries' round ids, oldest first
	// current is the round in play as the controller names it: the last
	// game_start's, or the round its entries name when that game_start
	// was not seen; "" between rounds.
	current string
	// judged are the rounds reconciled lately, oldest first, the last
	// controller.JudgedMax of them, those a monitor's last run judged
	// first (SeedJudged): a game_start or game_end for one of them comes
	// too late to begin or end anything, and an entry for one is kept
	// for it, not for the round in play.
	judged []string
	// lastJudged is the round this pipeline judged last: "" before any.
	lastJudged string
	// early counts the game_ends that came while their round was still
	// being dealt, by round.
	early map[string]int
	// startUnseen are the rounds whose game_start the monitor did not see:
	// their wagers may have been entered before it began watching.
	startUnseen map[string]bool
	// next is the round of a game_start that came while current was
	// still open: it begins once current is over (see start).
	next string
	// nextFrom is what the round in play showed when next's game_start
	// came: whether cards of it lay on the felt, and how many entries
	// the controller had made for it (see dealt).
	nextFrom struct {
		cards   bool
		entries int
	}
	// held is current's round as the tracker closed it, the table cleared,
	// while next waits: it is judged at its own game_end, or with a doubt
	// once the next round's first card is counted.
	held *tracker.Round
	// inside counts the game_starts that came inside each open round.
	inside map[string]int
	frame  int // the latest frame seen or event applied
	last   Timings
	cutter *classify.Cropper // made by the first CutCrop
	// stats holds the work of the detectors closed so far, one for each
	// calibration.
	stats Stats
}

// Stats counts a pipeline's work since it was opened, for metrics.
type Stats struct {
	// Vision sums the detector's work over every calibration.
	Vision vision.Stats
}

// Stats returns the counts of the pipeline's work so far.
func (p *Pipeline) Stats() Stats {
	s := p.stats
	if p.det != nil {
		s.Vision = addVision(s.Vision, p.det.Stats())
	}
	return s
}

func addVision(a, b vision.Stats) vision.Stats {
	return vision.Stats{Frames: a.Frames + b.Frames, Zones: a.Zones + b.Zones, Crops: a.Crops + b.Crops}
}

// closeDetector closes the detector, keeping the count of its work.
func (p *Pipeline) closeDetector() {
	if p.det != nil {
		p.stats.Vision = addVision(p.stats.Vision, p.det.Stats())
		p.det.Close()
		p.det = nil
	}
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
		if clf, err = classify.OpenEnrolled(clf, cfg.Deck, cfg.FeaturesModel); err != nil {
			return nil, err
		}
	}
	var suits *classify.PipSuits
	if cfg.SuitsModel != "" && cfg.Vision.CountPips {
		if suits, err = classify.OpenPipSuits(cfg.SuitsModel); err != nil {
			clf.Close()
			return nil, err
		}
		cfg.Vision.Suits = suits
	}
	tcfg := tracker.DefaultConfig(cfg.FPS)
	tcfg.Controlled = cfg.Controlled
	rc := cfg.Reconcile
	rc.FPS = cfg.FPS
	return &Pipeline{
		cfg:         cfg,
		clf:         clf,
		suits:       suits,
		trk:         tracker.New(tcfg, cfg.Table, cfg.Rules),
		rec:         alerts.NewReconciler(rc, cfg.Meter),
		entries:     map[string][]controller.Event{},
		early:       map[string]int{},
		startUnseen: map[string]bool{},
		inside:      map[string]int{},
	}, nil
}

// Close releases the detector, the models and the cropper. Safe to call
// twice.
func (p *Pipeline) Close() error {
	p.closeDetector()
	if p.clf != nil {
		p.clf.Close()
		p.clf = nil
	}
	if p.suits != nil {
		p.suits.Close()
		p.suits = nil
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
	p.closeDetector()
	p.cal = nil
}

// Timings says how long each stage took on the last frame.
func (p *Pipeline) Timings() Timings { return p.last }

// Snapshot is the round being rebuilt, as it stands.
func (p *Pipeline) Snapshot() (tracker.Round, bool) { return p.trk.Snapshot() }

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
	p.frame = max(p.frame, index)
	t0 := time.Now()
	obs, err := p.det.Detect(mat, index, t)
	if err != nil {
		return vision.Frame{}, nil, err
	}
	t1 := time.Now()
	rounds := p.trk.Observe(obs)
	t2 := time.Now()
	res := p.observed(rounds, index)
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
