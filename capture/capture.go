package capture

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"gocv.io/x/gocv"
)

// Config says what to read and how to reconnect.
type Config struct {
	// Source is a camera ("0", "/dev/video0", or a stable link such as
	// /dev/v4l/by-id/…), a stream URL (rtsp, rtsps, http, https, rtmp,
	// udp, tcp, srt) or a video file path.
	Source string
	// Backoff are the delays before each retry after a failure; the last
	// one repeats. A frame read resets it. Default 1 s, 2 s, 5 s, then
	// every 10 s.
	Backoff []time.Duration
	// Realtime paces a file at its frame rate, as a camera would deliver
	// it. Without it a file is read as fast as the consumer takes frames,
	// and none is dropped. Cameras and streams are never paced. A plain
	// bool: DefaultConfig sets it.
	Realtime bool
	// Loop starts a file again at its end (soak tests); the frame after
	// the jump says Reconnected. Without it, the end of a file counts as a
	// failure: the file is opened again after the backoff.
	Loop bool
	// Timeout bounds a stream's open and reads (FFmpeg's socket timeout),
	// default 5 s. gocv 0.31 cannot pass OpenCV's open parameters
	// (CAP_PROP_OPEN_TIMEOUT_MSEC, CAP_PROP_READ_TIMEOUT_MSEC), and
	// OpenCV 4.6 ignores them when set after opening, so Start sets
	// OPENCV_FFMPEG_CAPTURE_OPTIONS for the process, unless it is set
	// already; OpenCV's own 30 s limit applies beyond that.
	Timeout time.Duration
}

// DefaultBackoff is the reconnect schedule when Config.Backoff is empty.
var DefaultBackoff = []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second}

// DefaultTimeout is a stream's socket timeout when Config.Timeout is zero.
const DefaultTimeout = 5 * time.Second

// DefaultConfig returns the defaults: the backoff schedule, Realtime
// files and DefaultTimeout. Set Source.
func DefaultConfig() Config {
	return Config{Backoff: DefaultBackoff, Realtime: true, Timeout: DefaultTimeout}
}

// ConfigError names the Config field that is wrong and its value.
type ConfigError struct {
	Field  string
	Value  any
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("capture: %s = %v: %s", e.Field, e.Value, e.Reason)
}

// ConfigField names the field that is wrong.
func (e *ConfigError) ConfigField() string { return e.Field }

// ErrClosed is returned by Next once the Capture is closed or its context
// has ended.
var ErrClosed = errors.New("capture: closed")

// kind is what a Source names.
type kind int

const (
	kindFile kind = iota
	kindDevice
	kindStream
)

func (k kind) String() string { return [...]string{"file", "camera", "stream"}[k] }

var streamSchemes = map[string]bool{"rtsp": true, "rtsps": true, "http": true, "https": true, "rtmp": true, "udp": true, "tcp": true, "srt": true}

// classify says what src names, checking its form.
func classify(src string) (kind, error) {
	switch {
	case src == "":
		return 0, &ConfigError{"Source", `""`, "required"}
	case isDigits(src):
		if _, err := strconv.Atoi(src); err != nil {
			return 0, &ConfigError{"Source", src, "camera index out of range"}
		}
		return kindDevice, nil
	case strings.HasPrefix(src, "/dev/"):
		return kindDevice, nil
	case strings.Contains(src, "://"):
		u, err := url.Parse(src)
		if err != nil {
			return 0, &ConfigError{"Source", src, err.Error()}
		}
		if !streamSchemes[strings.ToLower(u.Scheme)] {
			return 0, &ConfigError{"Source", src, "scheme " + u.Scheme + " is not a stream (rtsp, rtsps, http, https, rtmp, udp, tcp, srt)"}
		}
		if u.Host == "" {
			return 0, &ConfigError{"Source", src, "no host"}
		}
		return kindStream, nil
	}
	return kindFile, nil
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// Validate checks c; empty Backoff and zero Timeout take their defaults.
func (c Config) Validate() error {
	if _, err := classify(c.Source); err != nil {
		return err
	}
	for i, d := range c.Backoff {
		if d <= 0 {
			return &ConfigError{fmt.Sprintf("Backoff[%d]", i), d, "must be positive"}
		}
	}
	if c.Timeout < 0 {
		return &ConfigError{"Timeout", c.Timeout, "must not be negative"}
	}
	return nil
}

// Info describes a frame returned by Next.
type Info struct {
	// Seq numbers the frames read since Start, 1 first, across
	// reconnects; frames dropped also take a number.
	Seq uint64
	// Time is the wall time the frame was read.
	Time time.Time
	// Dropped counts the frames read since the previous Next and
	// overwritten before being taken.
	Dropped int
	// Reconnected is set on the first frame taken after the source was
	// opened again (after a failure, or a file looped): what lay on the
	// table before may have changed.
	Reconnected bool
	// Grabbed marks a frame decoded but not converted into a picture
	// (File, for a frame its reader does not look at): Next left dst as
	// it was. A Capture converts every frame.
	Grabbed bool
}

// Stats are counters for metrics.
type Stats struct {
	Frames       uint64 // read from the source
	Dropped      uint64 // overwritten before Next took them
	Reconnects   uint64 // opens after the first
	OpenFailures uint64
	Connected    bool    // the source is open now
	FPS          float64 // the frame rate the source reports when opened; 0 when it says none
	LastError    error
	LastErrorAt  time.Time
}

// source is what the reader needs of an open gocv.VideoCapture; tests
// replace it.
type source interface {
	Read(m *gocv.Mat) bool
	Get(p gocv.VideoCaptureProperties) float64
	Close() error
}

var _ source = (*gocv.VideoCapture)(nil)

// opener opens the configured source.
type opener func(cfg Config) (source, error)

// Capture reads frames on its own goroutine. The caller must call Close.
type Capture struct {
	cfg    Config
	kind   kind
	log    *slog.Logger
	open   opener
	cancel context.CancelFunc
	done   chan struct{} // closed when the reader has ended

	mu            sync.Mutex
	latest        gocv.Mat // newest frame, owned by the Capture
	seq           uint64   // of latest; 0 before the first frame
	at            time.Time
	taken         uint64 // seq last returned by Next
	droppedAtTake uint64
	reconnected   bool          // a reopened source has published since the last Next
	fresh         chan struct{} // closed and replaced when a frame is published
	took          chan struct{} // closed and replaced when Next takes a frame
	closed        bool
	stats         Stats
}

// Start validates cfg and starts reading. It does not wait for the
// source: while the source cannot be opened (the camera is off), the
// reader keeps retrying on the backoff schedule and Next waits. The
// reader ends with ctx or Close. log gets a line per open, failure and
// reconnect; nil logs nowhere.
func Start(ctx context.Context, cfg Config, log *slog.Logger) (*Capture, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	k, _ := classify(cfg.Source)
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if k == kindStream {
		setStreamOptions(cfg.Timeout)
	}
	return start(ctx, cfg, log, openSource)
}

// start starts the reader with open; tests give their own.
func start(ctx context.Context, cfg Config, log *slog.Logger, open opener) (*Capture, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	k, _ := classify(cfg.Source)
	if len(cfg.Backoff) == 0 {
		cfg.Backoff = DefaultBackoff
	}
	cfg.Backoff = append([]time.Duration(nil), cfg.Backoff...)
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(ctx)
	c := &Capture{
		cfg:    cfg,
		kind:   k,
		log:    log.With("source", redact(cfg.Source)),
		open:   open,
		cancel: cancel,
		done:   make(chan struct{}),
		latest: gocv.NewMat(),
		fresh:  make(chan struct{}),
		took:   make(chan struct{}),
	}
	go c.run(ctx)
	return c, nil
}

// redact hides a stream URL's password in logs.
func redact(src string) string {
	if u, err := url.Parse(src); err == nil && u.User != nil {
		return u.Redacted()
	}
	return src
}

var streamOptions sync.Once

// setStreamOptions sets FFmpeg's socket timeout for every stream OpenCV
// opens in this process, unless the operator set the options already.
// Without the variable OpenCV asks for RTSP over TCP first; that is kept.
func setStreamOptions(timeout time.Duration) {
	streamOptions.Do(func() {
		const key = "OPENCV_FFMPEG_CAPTURE_OPTIONS"
		if _, set := os.LookupEnv(key); !set {
			os.Setenv(key, fmt.Sprintf("rtsp_flags;prefer_tcp|timeout;%d", timeout.Microseconds()))
		}
	})
}

// openSource opens cfg.Source with OpenCV.
func openSource(cfg Config) (source, error) {
	k, err := classify(cfg.Source)
	if err != nil {
		return nil, err
	}
	var vc *gocv.VideoCapture
	switch k {
	case kindDevice:
		index, err := deviceIndex(cfg.Source)
		if err != nil {
			return nil, err
		}
		if index >= 0 {
			vc, err = gocv.VideoCaptureDevice(index)
		} else {
			vc, err = gocv.VideoCaptureFileWithAPI(cfg.Source, gocv.VideoCaptureV4L2)
		}
	case kindStream:
		vc, err = gocv.VideoCaptureFileWithAPI(cfg.Source, gocv.VideoCaptureFFmpeg)
	default:
		// OpenCV says only "cannot open": say why.
		if _, err := os.Stat(cfg.Source); err != nil {
			return nil, err
		}
		vc, err = gocv.VideoCaptureFile(cfg.Source)
	}
	if err == nil && !vc.IsOpened() {
		err = errors.New("not opened")
	}
	if err != nil {
		if vc != nil {
			vc.Close() // gocv returns it even when the open failed
		}
		return nil, fmt.Errorf("capture: opening %s: %w", redact(cfg.Source), err)
	}
	return vc, nil
}

// deviceIndex is the V4L2 index a camera source names, following links
// (/dev/v4l/by-id/… stays right when the camera is plugged in again), or
// -1 for a device path that is not /dev/videoN.
func deviceIndex(src string) (int, error) {
	if isDigits(src) {
		return strconv.Atoi(src)
	}
	path, err := filepath.EvalSymlinks(src)
	if err != nil {
		return 0, err
	}
	if n, ok := strings.CutPrefix(path, "/dev/video"); ok && isDigits(n) {
		return strconv.Atoi(n)
	}
	return -1, nil
}

// run is the reader: open, read until failure, close, wait, again.
func (c *Capture) run(ctx context.Context) {
	defer close(c.done)
	back := gocv.NewMat() // read into, then swapped with latest
	defer back.Close()
	attempt := 0 // failures since a frame was last read
	opened := false
	var warn repeatLog
	for ctx.Err() == nil {
		src, err := c.open(c.cfg)
		if err != nil {
			c.mu.Lock()
			c.stats.OpenFailures++
			c.stats.LastError, c.stats.LastErrorAt = err, time.Now()
			c.mu.Unlock()
			delay := c.backoff(attempt)
			c.log.Log(ctx, warn.level(err, time.Now()), "capture: cannot open the source", "err", err, "attempt", attempt+1, "retry_in", delay)
			attempt++
			if !sleep(ctx, delay) {
				return
			}
			continue
		}
		reopen := opened
		opened = true
		fps := src.Get(gocv.VideoCaptureFPS)
		if math.IsNaN(fps) || fps <= 0 || fps > 1000 {
			fps = 0
		}
		c.mu.Lock()
		c.stats.Connected = true
		c.stats.FPS = fps
		if reopen {
			c.stats.Reconnects++
		}
		c.mu.Unlock()
		c.log.Info("capture: source open", "kind", c.kind, "reconnect", reopen)

		n, err := c.stream(ctx, src, fps, &back, reopen)
		src.Close()
		c.mu.Lock()
		c.stats.Connected = false
		if err != nil && ctx.Err() == nil && !(errors.Is(err, errEnd) && c.cfg.Loop) {
			c.stats.LastError, c.stats.LastErrorAt = err, time.Now()
		}
		c.mu.Unlock()
		if ctx.Err() != nil {
			return
		}
		if n > 0 {
			attempt = 0
		}
		if errors.Is(err, errEnd) && c.cfg.Loop && n > 0 {
			continue // start the file again at once
		}
		delay := c.backoff(attempt)
		level := slog.LevelWarn
		if n == 0 {
			// Opens but gives no frame: as bad as one that does not open.
			level = warn.level(err, time.Now())
		} else {
			warn = repeatLog{}
		}
		c.log.Log(ctx, level, "capture: source lost; reconnecting", "err", err, "frames", n, "attempt", attempt+1, "retry_in", delay)
		attempt++
		if !sleep(ctx, delay) {
			return
		}
	}
}

// repeatLog sets the level of a failure logged at each backoff step: a
// warning for a new error, and for the same error again once a minute has
// passed since it was last a warning; debug otherwise. A camera left off
// is thus reported once a minute, not every 10 s for hours, nor once only.
type repeatLog struct {
	last string
	at   time.Time
}

func (r *repeatLog) level(err error, now time.Time) slog.Level {
	if err.Error() == r.last && now.Sub(r.at) < time.Minute {
		return slog.LevelDebug
	}
	r.last, r.at = err.Error(), now
	return slog.LevelWarn
}

// errEnd is a file's end.
var errEnd = errors.New("capture: end of file")

// stream reads src until it fails or ctx ends, publishing each frame, and
// returns how many it read. fps is the source's own rate, 0 when unknown.
func (c *Capture) stream(ctx context.Context, src source, fps float64, back *gocv.Mat, reopen bool) (int, error) {
	var period time.Duration
	if c.kind == kindFile && c.cfg.Realtime {
		if fps == 0 {
			fps = 25
		}
		period = time.Duration(float64(time.Second) / fps)
	}
	lossless := c.kind == kindFile && !c.cfg.Realtime
	begin := time.Now()
	for n := 0; ; n++ {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		if !src.Read(back) || back.Empty() {
			if c.kind == kindFile {
				return n, errEnd
			}
			return n, errors.New("capture: read failed")
		}
		if period > 0 {
			due := begin.Add(time.Duration(n) * period)
			if wait := time.Until(due); wait > 0 {
				if !sleep(ctx, wait) {
					return n, ctx.Err()
				}
			} else if -wait > period {
				begin = time.Now().Add(-time.Duration(n) * period) // fell behind: no burst to catch up
			}
		}
		if lossless && !c.waitTaken(ctx) {
			return n, ctx.Err()
		}
		c.publish(back, reopen && n == 0)
	}
}

// waitTaken waits until Next has taken the newest frame.
func (c *Capture) waitTaken(ctx context.Context) bool {
	for {
		c.mu.Lock()
		if c.taken >= c.seq {
			c.mu.Unlock()
			return true
		}
		took := c.took
		c.mu.Unlock()
		select {
		case <-took:
		case <-ctx.Done():
			return false
		}
	}
}

// publish makes the frame in back the newest, giving back the buffer of
// the one it replaces.
func (c *Capture) publish(back *gocv.Mat, first bool) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.latest, *back = *back, c.latest
	if c.seq > c.taken {
		c.stats.Dropped++
	}
	c.seq++
	c.at = now
	c.stats.Frames++
	if first {
		c.reconnected = true
	}
	close(c.fresh)
	c.fresh = make(chan struct{})
}

// backoff is the delay before retry number attempt (0 first).
func (c *Capture) backoff(attempt int) time.Duration {
	return c.cfg.Backoff[min(attempt, len(c.cfg.Backoff)-1)]
}

// sleep waits d, or less when ctx ends; it says whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Next waits for a frame newer than the last one it returned, copies it
// into dst (owned by the caller), and describes it. It returns ctx's error
// when ctx ends first, and ErrClosed once the Capture is closed or the
// context given to Start has ended.
func (c *Capture) Next(ctx context.Context, dst *gocv.Mat) (Info, error) {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return Info{}, ErrClosed
		}
		if c.seq > c.taken {
			c.latest.CopyTo(dst)
			info := Info{Seq: c.seq, Time: c.at, Dropped: int(c.stats.Dropped - c.droppedAtTake), Reconnected: c.reconnected}
			c.taken, c.droppedAtTake, c.reconnected = c.seq, c.stats.Dropped, false
			close(c.took)
			c.took = make(chan struct{})
			c.mu.Unlock()
			return info, nil
		}
		fresh := c.fresh
		c.mu.Unlock()
		select {
		case <-fresh:
		case <-ctx.Done():
			return Info{}, ctx.Err()
		case <-c.done:
			return Info{}, ErrClosed
		}
	}
}

// FPS is the frame rate the source reported when it was last opened; 0
// before it opened, or when it says none.
func (c *Capture) FPS() float64 { return c.Stats().FPS }

// Stats returns the counters.
func (c *Capture) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Close stops the reader, waits for it and frees the frames. A read or an
// open in progress cannot be interrupted: Close may wait for it, at most
// the stream Timeout (or OpenCV's 30 s) for a stream.
func (c *Capture) Close() error {
	c.cancel()
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		c.latest.Close()
	}
	return nil
}
