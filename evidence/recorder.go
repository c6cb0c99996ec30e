package evidence

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"gocv.io/x/gocv"
)

// Config says where evidence goes, how long it is kept, and how much video
// history is held in memory. A zero field takes its default.
type Config struct {
	Dir         string        // required; the Recorder's own: retention deletes its old .jpg and .mp4 files
	MaxAge      time.Duration // default 30 days; older evidence is deleted
	MaxBytes    int64         // default 2 GiB; beyond it the oldest files are deleted first
	Before      time.Duration // clip span before the moment, default 5 s
	After       time.Duration // clip span after the moment, default 3 s
	History     time.Duration // how far back a moment may lie, default 90 s (a round lasts about a minute, and its alert fires at game end)
	FPS         float64       // frames kept a second, default 10; also the clip's frame rate
	Width       int           // frames are kept downscaled to this width (even, ≥ 16), default 960; smaller frames are kept as they are
	JPEGQuality int           // 1 to 100, default 80
	Logger      *slog.Logger  // default slog.Default()
}

// Defaults.
const (
	DefaultMaxAge      = 30 * 24 * time.Hour
	DefaultMaxBytes    = 2 << 30
	DefaultBefore      = 5 * time.Second
	DefaultAfter       = 3 * time.Second
	DefaultHistory     = 90 * time.Second
	DefaultFPS         = 10
	DefaultWidth       = 960
	DefaultJPEGQuality = 80
)

// clipWait is how long, in wall time after the video time t+After was due,
// a clip waits for its last frames before it is written with what there is
// (the camera may have stopped).
const clipWait = 10 * time.Second

// eps absorbs float rounding in video times.
const eps = 1e-6

// ConfigError names the Config field that is wrong and its value.
type ConfigError struct {
	Field  string
	Value  any
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("evidence: %s = %v: %s", e.Field, e.Value, e.Reason)
}

// ConfigField names the field that is wrong.
func (e *ConfigError) ConfigField() string { return e.Field }

// ErrClosed is returned by Add and Save after Close.
var ErrClosed = errors.New("evidence: recorder closed")

// ErrNoFrames is returned by Save before any frame was kept.
var ErrNoFrames = errors.New("evidence: no frame kept yet")

func (c Config) withDefaults() Config {
	if c.MaxAge == 0 {
		c.MaxAge = DefaultMaxAge
	}
	if c.MaxBytes == 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.Before == 0 {
		c.Before = DefaultBefore
	}
	if c.After == 0 {
		c.After = DefaultAfter
	}
	if c.History == 0 {
		c.History = DefaultHistory
	}
	if c.FPS == 0 {
		c.FPS = DefaultFPS
	}
	if c.Width == 0 {
		c.Width = DefaultWidth
	}
	if c.JPEGQuality == 0 {
		c.JPEGQuality = DefaultJPEGQuality
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// Validate checks c once its defaults are filled in.
func (c Config) Validate() error {
	c = c.withDefaults()
	switch {
	case c.Dir == "":
		return &ConfigError{"Dir", `""`, "required"}
	case c.MaxAge < 0:
		return &ConfigError{"MaxAge", c.MaxAge, "must not be negative"}
	case c.MaxBytes < 0:
		return &ConfigError{"MaxBytes", c.MaxBytes, "must not be negative"}
	case c.Before < 0:
		return &ConfigError{"Before", c.Before, "must not be negative"}
	case c.After < 0:
		return &ConfigError{"After", c.After, "must not be negative"}
	case c.History < 0:
		return &ConfigError{"History", c.History, "must not be negative"}
	case math.IsNaN(c.FPS) || c.FPS < 0 || c.FPS > 60:
		return &ConfigError{"FPS", c.FPS, "must be above 0 and at most 60"}
	case c.Width < 16 || c.Width%2 != 0:
		return &ConfigError{"Width", c.Width, "must be even and at least 16"}
	case c.JPEGQuality < 1 || c.JPEGQuality > 100:
		return &ConfigError{"JPEGQuality", c.JPEGQuality, "must be 1 to 100"}
	}
	return nil
}

// Paths are where the evidence of one alert lies. The snapshot exists when
// Save returns; the clip appears once written.
type Paths struct {
	Snapshot, Clip string
	// FrameT is the video time of the frame in the snapshot.
	FrameT float64
	// Stale is set when no kept frame lies within one frame period of the
	// moment: it was older than History (the snapshot shows the oldest kept
	// frame, and the clip is centred on it) or newer than the last frame
	// added (the snapshot shows the newest).
	Stale bool
}

// Stats are counters for metrics.
type Stats struct {
	Kept          uint64 // frames kept by Add
	Buffered      int    // frames held in memory now
	BufferedBytes int64  // their JPEG bytes
	Saved         uint64 // snapshots written
	Stale         uint64 // of which showed a frame away from the moment (Paths.Stale)
	Clips         uint64 // clips written
	Pending       int    // clips waiting for frames or for the encoder
	PrunedFiles   uint64 // files deleted by retention
	PrunedBytes   uint64
	Errors        uint64 // failed frames, snapshots, clips and deletions
}

// Recorder keeps recent frames and writes evidence. Add and Save may be
// called from different goroutines. The caller must call Close, which
// finishes the pending clips.
type Recorder struct {
	cfg     Config
	log     *slog.Logger
	period  float64 // seconds between kept frames
	keep    float64 // seconds of history held: History + Before
	ctx     context.Context
	cancel  context.CancelFunc
	wake    chan struct{} // capacity 1: work queued
	closing chan struct{} // closed by Close: drain and stop
	done    chan struct{} // closed when the worker has ended

	mu       sync.Mutex
	frames   []frame // oldest first
	bytes    int64   // JPEG bytes in frames
	started  bool    // a frame was kept on the current timeline
	next     float64 // video time the next kept frame is due
	last     float64 // video time of the newest kept frame
	pending  []*clip // waiting for the frames after their moment
	queue    []*clip // ready to encode
	reserved map[string]bool
	prune    bool // retention is due
	closed   bool

	// lastClip is the last clip encoded; only the worker, then Close,
	// touch it.
	lastClip struct {
		key  clipKey
		path string
	}

	kept, saved, stale, clips, prunedFiles, prunedBytes, errs atomic.Uint64
}

// frame is one kept frame: a JPEG, and the scale from the original
// frame's pixels to it.
type frame struct {
	t     float64
	jpeg  []byte
	scale float64
}

type clip struct {
	base       string // reserved name, without extension
	path       string
	start, end float64 // video times
	deadline   time.Time
	frames     []frame
}

// New validates cfg, creates Dir, applies retention once, and starts the
// background goroutine that encodes clips; it ends with ctx or Close.
func New(ctx context.Context, cfg Config) (*Recorder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if err := os.MkdirAll(cfg.Dir, 0o750); err != nil {
		return nil, &ConfigError{"Dir", cfg.Dir, err.Error()}
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &Recorder{
		cfg:      cfg,
		log:      cfg.Logger,
		period:   1 / cfg.FPS,
		keep:     (cfg.History + cfg.Before).Seconds(),
		ctx:      ctx,
		cancel:   cancel,
		wake:     make(chan struct{}, 1),
		closing:  make(chan struct{}),
		done:     make(chan struct{}),
		reserved: map[string]bool{},
	}
	probe := filepath.Join(cfg.Dir, ".probe")
	if err := os.WriteFile(probe, nil, 0o640); err != nil {
		cancel()
		return nil, &ConfigError{"Dir", cfg.Dir, "not writable: " + err.Error()}
	}
	os.Remove(probe)
	if err := r.applyRetention(time.Now()); err != nil {
		r.log.Error("evidence: retention", "dir", cfg.Dir, "err", err)
	}
	go r.run()
	return r, nil
}

// Add keeps a downscaled JPEG copy of frame (BGR, at least 16×16) taken at
// video time t in seconds, when its turn has come: kept frames follow a
// grid of 1/FPS, so a 25 fps source still gives FPS frames a second. It
// never keeps the Mat. When t goes back by more than a second (a new
// video), the history is dropped and the pending clips are written with
// what they have. Add encodes on the caller's goroutine (a few ms at
// 1080p, FPS times a second); the other calls only compare times. Call it
// from one goroutine, in time order (the frame loop); Save may run on
// another.
func (r *Recorder) Add(src gocv.Mat, t float64) error {
	if math.IsNaN(t) || math.IsInf(t, 0) {
		return fmt.Errorf("evidence: frame time %v", t)
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return ErrClosed
	}
	if r.started && t < r.last-1 {
		r.restartLocked()
	}
	due := !r.started || t >= r.next-eps
	r.mu.Unlock()
	if !due {
		return nil
	}
	if src.Empty() || src.Type() != gocv.MatTypeCV8UC3 || src.Cols() < 16 || src.Rows() < 16 {
		r.errs.Add(1)
		return fmt.Errorf("evidence: frame %dx%d type %v: want BGR, at least 16×16", src.Cols(), src.Rows(), src.Type())
	}
	f, err := r.encode(src, t)
	if err != nil {
		r.errs.Add(1)
		return err
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	if r.started {
		r.next += r.period
	}
	if !r.started || r.next <= t {
		r.next = t + r.period
	}
	r.started = true
	r.last = t
	r.frames = append(r.frames, f)
	r.bytes += int64(len(f.jpeg))
	r.kept.Add(1)
	drop := 0
	for drop < len(r.frames) && r.frames[drop].t < t-r.keep-eps {
		r.bytes -= int64(len(r.frames[drop].jpeg))
		drop++
	}
	if drop > 0 {
		r.frames = append(r.frames[:0], r.frames[drop:]...)
	}
	ready := false
	kept := r.pending[:0]
	for _, c := range r.pending {
		if f.t >= c.start-eps && f.t <= c.end+eps {
			c.frames = append(c.frames, f)
		}
		if f.t >= c.end-eps {
			r.queue = append(r.queue, c)
			ready = true
			continue
		}
		kept = append(kept, c)
	}
	clear(r.pending[len(kept):])
	r.pending = kept
	if ready {
		r.signal()
	}
	return nil
}

// restartLocked starts a new timeline: the pending clips go to the encoder
// with what they have, and the history is dropped.
func (r *Recorder) restartLocked() {
	r.log.Warn("evidence: video time went back; history dropped", "from", r.last)
	r.queue = append(r.queue, r.pending...)
	r.pending = nil
	r.frames = nil
	r.bytes = 0
	r.started = false
	r.signal()
}

// encode downscales src to the kept width and compresses it.
func (r *Recorder) encode(src gocv.Mat, t float64) (frame, error) {
	w, h := keptSize(src.Cols(), src.Rows(), r.cfg.Width)
	img := src
	if w != src.Cols() || h != src.Rows() {
		small := gocv.NewMat()
		defer small.Close()
		gocv.Resize(src, &small, image.Pt(w, h), 0, 0, gocv.InterpolationArea)
		img = small
	}
	buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, img, []int{gocv.IMWriteJpegQuality, r.cfg.JPEGQuality})
	if err != nil {
		return frame{}, fmt.Errorf("evidence: JPEG: %w", err)
	}
	defer buf.Close()
	return frame{t: t, jpeg: bytes.Clone(buf.GetBytes()), scale: float64(w) / float64(src.Cols())}, nil
}

// keptSize is the size a cols×rows frame is kept at: at most width wide,
// the same aspect, both sides even and at least 16 (as the clip encoder
// needs).
func keptSize(cols, rows, width int) (int, int) {
	w := min(width, cols) &^ 1
	h := int(math.Round(float64(rows)*float64(w)/float64(cols))) &^ 1
	return max(w, 16), max(h, 16)
}

// Save records the evidence of the alert id at video time t. It writes the
// snapshot now: the kept frame nearest t, decoded, with draw applied (draw
// gets the image and the scale from the original frame's pixels to it, and
// must draw in place; nil draws nothing). The clip, from t-Before to
// t+After, is encoded in the background once a frame at or after t+After
// has been added, or clipWait after that was due in wall time, or at
// Close, with what there is. Both paths are returned at once. File names
// are id with anything but letters, digits, '.', '_' and '-' replaced,
// and a -2, -3… suffix when taken.
//
// A moment older than the history (History+Before) is not an error: the
// snapshot shows the oldest kept frame, the clip is centred on it, and
// Paths.Stale says so. The error is ErrNoFrames before any frame was kept.
func (r *Recorder) Save(id string, t float64, draw func(img *gocv.Mat, scale float64)) (Paths, error) {
	if math.IsNaN(t) || math.IsInf(t, 0) {
		return Paths{}, fmt.Errorf("evidence: alert %q: moment %v", id, t)
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return Paths{}, ErrClosed
	}
	if len(r.frames) == 0 {
		r.mu.Unlock()
		return Paths{}, ErrNoFrames
	}
	f := r.frames[nearest(r.frames, t)]
	stale := math.Abs(f.t-t) > r.period+eps
	centre := t
	if t < r.frames[0].t {
		centre = f.t
	}
	base := r.reserveLocked(sanitize(id))
	c := &clip{
		base:     base,
		path:     filepath.Join(r.cfg.Dir, base+".mp4"),
		start:    centre - r.cfg.Before.Seconds(),
		end:      centre + r.cfg.After.Seconds(),
		deadline: time.Now().Add(time.Duration((centre-r.last)*float64(time.Second)) + r.cfg.After + clipWait),
	}
	for _, g := range r.frames {
		if g.t >= c.start-eps && g.t <= c.end+eps {
			c.frames = append(c.frames, g)
		}
	}
	if r.last >= c.end-eps {
		r.queue = append(r.queue, c)
		r.signal()
	} else {
		r.pending = append(r.pending, c)
	}
	r.mu.Unlock()

	p := Paths{
		Snapshot: filepath.Join(r.cfg.Dir, base+".jpg"),
		Clip:     c.path,
		FrameT:   f.t,
		Stale:    stale,
	}
	if err := r.writeSnapshot(p.Snapshot, f, draw); err != nil {
		r.errs.Add(1)
		return p, err
	}
	r.saved.Add(1)
	if stale {
		r.stale.Add(1)
		r.log.Warn("evidence: no frame at the alert's moment; the snapshot shows the nearest kept one",
			"id", id, "t", t, "frame_t", f.t)
	}
	r.mu.Lock()
	r.prune = true
	r.signal()
	r.mu.Unlock()
	return p, nil
}

// nearest is the index of the frame nearest t in frames (oldest first,
// not empty).
func nearest(frames []frame, t float64) int {
	lo, hi := 0, len(frames)
	for lo < hi { // first frame at or after t
		m := (lo + hi) / 2
		if frames[m].t < t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	switch {
	case lo == len(frames):
		return lo - 1
	case lo > 0 && t-frames[lo-1].t <= frames[lo].t-t:
		return lo - 1
	}
	return lo
}

// sanitize makes id a safe file name.
func sanitize(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' && i > 0) {
			b[i] = '_'
		}
	}
	if len(b) > 100 {
		b = b[:100]
	}
	if len(b) == 0 {
		return "alert"
	}
	return string(b)
}

// reserveLocked returns a base name, derived from name, that neither this
// recorder nor the directory uses yet, and reserves it until its clip is
// written.
func (r *Recorder) reserveLocked(name string) string {
	for i := 1; ; i++ {
		base := name
		if i > 1 {
			base = fmt.Sprintf("%s-%d", name, i)
		}
		if r.reserved[base] || exists(filepath.Join(r.cfg.Dir, base+".jpg")) || exists(filepath.Join(r.cfg.Dir, base+".mp4")) {
			continue
		}
		r.reserved[base] = true
		return base
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// writeSnapshot writes f, with draw applied, to path.
func (r *Recorder) writeSnapshot(path string, f frame, draw func(img *gocv.Mat, scale float64)) error {
	if draw == nil {
		return writeFile(path, f.jpeg)
	}
	img, err := gocv.IMDecode(f.jpeg, gocv.IMReadColor)
	if err != nil {
		return fmt.Errorf("evidence: snapshot: %w", err)
	}
	defer img.Close()
	if img.Empty() {
		return errors.New("evidence: snapshot: kept frame does not decode")
	}
	draw(&img, f.scale)
	if img.Empty() {
		return errors.New("evidence: snapshot: draw left an empty image")
	}
	buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, img, []int{gocv.IMWriteJpegQuality, r.cfg.JPEGQuality})
	if err != nil {
		return fmt.Errorf("evidence: snapshot: %w", err)
	}
	defer buf.Close()
	return writeFile(path, buf.GetBytes())
}

// writeFile writes b to path through a temporary file, so path is never
// seen half written.
func writeFile(path string, b []byte) error {
	tmp := partName(path)
	if err := os.WriteFile(tmp, b, 0o640); err != nil {
		return fmt.Errorf("evidence: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("evidence: %w", err)
	}
	return nil
}

// partName is the temporary name path is written under: hidden, with the
// same extension (the clip encoder picks the format by it).
func partName(path string) string {
	dir, name := filepath.Split(path)
	ext := filepath.Ext(name)
	return filepath.Join(dir, "."+name[:len(name)-len(ext)]+".part"+ext)
}

// Stats returns the counters.
func (r *Recorder) Stats() Stats {
	r.mu.Lock()
	s := Stats{Buffered: len(r.frames), BufferedBytes: r.bytes, Pending: len(r.pending) + len(r.queue)}
	r.mu.Unlock()
	s.Kept = r.kept.Load()
	s.Saved = r.saved.Load()
	s.Stale = r.stale.Load()
	s.Clips = r.clips.Load()
	s.PrunedFiles = r.prunedFiles.Load()
	s.PrunedBytes = r.prunedBytes.Load()
	s.Errors = r.errs.Load()
	return s
}

// signal wakes the worker; it never blocks.
func (r *Recorder) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Close stops taking frames and alerts, writes every pending clip with the
// frames it has, applies retention, and waits for the background
// goroutine. When ctx has already ended, the clips that goroutine left are
// written here, on the caller's goroutine. It returns the first error met.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.queue = append(r.queue, r.pending...)
	r.pending = nil
	r.mu.Unlock()
	close(r.closing)
	<-r.done
	var first error
	for c := r.pop(); c != nil; c = r.pop() {
		if err := r.writeClip(context.Background(), c); err != nil && first == nil {
			first = err
		}
	}
	if err := r.applyRetention(time.Now()); err != nil && first == nil {
		first = err
	}
	r.cancel()
	r.mu.Lock()
	r.frames = nil
	r.bytes = 0
	r.mu.Unlock()
	return first
}
