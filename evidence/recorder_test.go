package evidence

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"bjmonitor/internal/matleak"
)

func TestMain(m *testing.M) { os.Exit(matleak.Run(m)) }

// newRecorder starts a Recorder on a temporary directory, closed at the
// end of the test.
func newRecorder(tb testing.TB, cfg Config) *Recorder {
	tb.Helper()
	if cfg.Dir == "" {
		cfg.Dir = tb.TempDir()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	r, err := New(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { r.Close() })
	return r
}

// feed adds frames at fps from video time from to to (inclusive), each
// grey at level(i) where i is the frame's index from time 0.
func feed(tb testing.TB, r *Recorder, frame *gocv.Mat, fps, from, to float64) {
	tb.Helper()
	for i := int(math.Round(from * fps)); float64(i)/fps <= to+eps; i++ {
		frame.SetTo(gocv.NewScalar(level(i), level(i), level(i), 0))
		if err := r.Add(*frame, float64(i)/fps); err != nil {
			tb.Fatal(err)
		}
	}
}

func level(i int) float64 { return float64(i*4%250) + 2 }

func countFrames(tb testing.TB, path string) int {
	tb.Helper()
	vc, err := gocv.VideoCaptureFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer vc.Close()
	m := gocv.NewMat()
	defer m.Close()
	n := 0
	for vc.Read(&m) && !m.Empty() {
		n++
	}
	return n
}

func TestConfigErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		cfg   Config
		field string
	}{
		{"no dir", Config{}, "Dir"},
		{"dir is a file", Config{Dir: filepath.Join(file, "x")}, "Dir"},
		{"negative age", Config{Dir: dir, MaxAge: -time.Hour}, "MaxAge"},
		{"negative bytes", Config{Dir: dir, MaxBytes: -1}, "MaxBytes"},
		{"negative before", Config{Dir: dir, Before: -time.Second}, "Before"},
		{"negative after", Config{Dir: dir, After: -time.Second}, "After"},
		{"negative history", Config{Dir: dir, History: -time.Second}, "History"},
		{"fps", Config{Dir: dir, FPS: -1}, "FPS"},
		{"fps too high", Config{Dir: dir, FPS: 120}, "FPS"},
		{"fps NaN", Config{Dir: dir, FPS: math.NaN()}, "FPS"},
		{"odd width", Config{Dir: dir, Width: 961}, "Width"},
		{"tiny width", Config{Dir: dir, Width: 8}, "Width"},
		{"quality", Config{Dir: dir, JPEGQuality: 101}, "JPEGQuality"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := New(context.Background(), tc.cfg)
			if err == nil {
				r.Close()
				t.Fatalf("New(%+v) succeeded", tc.cfg)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != tc.field {
				t.Errorf("New(%+v) = %v, want an error on %s", tc.cfg, err, tc.field)
			}
		})
	}
}

func TestSnapshot(t *testing.T) {
	r := newRecorder(t, Config{Width: 640})
	frame := gocv.NewMatWithSize(720, 1280, gocv.MatTypeCV8UC3)
	defer frame.Close()
	feed(t, r, &frame, 10, 0, 4)
	// draw marks the original frame's rectangle (200,100)-(400,300) red.
	red := color.RGBA{R: 255, A: 255}
	var scales []float64
	draw := func(img *gocv.Mat, scale float64) {
		scales = append(scales, scale)
		rect := image.Rect(int(200*scale), int(100*scale), int(400*scale), int(300*scale))
		gocv.Rectangle(img, rect, red, -1)
	}
	for _, tc := range []struct {
		id       string
		t        float64
		draw     bool
		wantName string
		wantI    int // index of the frame shown
	}{
		{"round 7/seat 3", 2.04, true, "round_7_seat_3.jpg", 20},
		{"round 7/seat 3", 2.06, true, "round_7_seat_3-2.jpg", 21},
		{"../../etc/x", 0, false, "_._.._etc_x.jpg", 0},
		{"", 3.96, true, "alert.jpg", 40},
	} {
		t.Run(tc.wantName, func(t *testing.T) {
			d := draw
			if !tc.draw {
				d = nil
			}
			p, err := r.Save(tc.id, tc.t, d)
			if err != nil {
				t.Fatal(err)
			}
			if got := filepath.Base(p.Snapshot); got != tc.wantName {
				t.Errorf("snapshot %s, want %s", got, tc.wantName)
			}
			if filepath.Dir(p.Snapshot) != r.cfg.Dir || filepath.Dir(p.Clip) != r.cfg.Dir {
				t.Errorf("paths %+v outside %s", p, r.cfg.Dir)
			}
			if want := float64(tc.wantI) / 10; p.FrameT != want || p.Stale {
				t.Errorf("frame at %v (stale %v), want %v", p.FrameT, p.Stale, want)
			}
			img := gocv.IMRead(p.Snapshot, gocv.IMReadColor)
			defer img.Close()
			if img.Cols() != 640 || img.Rows() != 360 {
				t.Fatalf("snapshot %dx%d, want 640x360", img.Cols(), img.Rows())
			}
			bg := img.GetVecbAt(10, 10)
			if want := level(tc.wantI); math.Abs(float64(bg[1])-want) > 3 {
				t.Errorf("background %v, want grey %v (frame %d)", bg, want, tc.wantI)
			}
			mark := img.GetVecbAt(100, 150) // row, col: the original (300,200)
			if isRed := mark[2] > 200 && mark[1] < 60; isRed != tc.draw {
				t.Errorf("pixel in the drawn box %v, drawn %v", mark, tc.draw)
			}
		})
	}
	for _, s := range scales {
		if s != 0.5 {
			t.Errorf("draw got scale %v, want 0.5", s)
		}
	}
	if s := r.Stats(); s.Saved != 4 || s.Kept != 41 || s.Buffered != 41 {
		t.Errorf("stats %+v, want 4 saved, 41 kept and buffered", s)
	}
}

func TestClips(t *testing.T) {
	r := newRecorder(t, Config{Before: 500 * time.Millisecond, After: 300 * time.Millisecond, Width: 320})
	frame := gocv.NewMatWithSize(240, 320, gocv.MatTypeCV8UC3)
	defer frame.Close()
	feed(t, r, &frame, 10, 0, 5)
	done, err := r.Save("done", 3, nil) // 2.5 … 3.3
	if err != nil {
		t.Fatal(err)
	}
	same, err := r.Save("same", 3, nil) // the same frames: linked
	if err != nil {
		t.Fatal(err)
	}
	waits, err := r.Save("waits", 4.9, nil) // 4.4 … 5.2, complete once 5.2 is added
	if err != nil {
		t.Fatal(err)
	}
	feed(t, r, &frame, 10, 5.1, 5.2)
	short, err := r.Save("short", 5.1, nil) // 4.6 … 5.4, finished at Close with 4.6 … 5.2
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(short.Clip); err == nil {
		t.Error("a clip was written before its frames came")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p    Paths
		want int
	}{{done, 9}, {same, 9}, {waits, 9}, {short, 7}} {
		if got := countFrames(t, tc.p.Clip); got != tc.want {
			t.Errorf("%s: %d frames, want %d", filepath.Base(tc.p.Clip), got, tc.want)
		}
	}
	if s := r.Stats(); s.Clips != 4 || s.Pending != 0 || s.Errors != 0 {
		t.Errorf("stats %+v, want 4 clips, none pending, no errors", s)
	}
	a, errA := os.Stat(done.Clip)
	b, errB := os.Stat(same.Clip)
	if errA != nil || errB != nil || !os.SameFile(a, b) {
		t.Errorf("clips of the same frames %s and %s not linked (%v, %v)", done.Clip, same.Clip, errA, errB)
	}
	left, _ := filepath.Glob(filepath.Join(r.cfg.Dir, ".*"))
	if len(left) != 0 {
		t.Errorf("part files left: %v", left)
	}
	if _, err := r.Save("late", 5, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Save after Close = %v, want ErrClosed", err)
	}
}

// TestClipInBackground checks that a clip is written without Close once
// its last frame came.
func TestClipInBackground(t *testing.T) {
	r := newRecorder(t, Config{Before: 200 * time.Millisecond, After: 200 * time.Millisecond, Width: 64})
	frame := gocv.NewMatWithSize(48, 64, gocv.MatTypeCV8UC3)
	defer frame.Close()
	feed(t, r, &frame, 10, 0, 1)
	p, err := r.Save("bg", 0.5, nil)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); r.Stats().Clips == 0; {
		if time.Now().After(deadline) {
			t.Fatal("clip not written in 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := countFrames(t, p.Clip); got != 5 {
		t.Errorf("%d frames, want 5", got)
	}
}

func TestKeepRate(t *testing.T) {
	frame := gocv.NewMatWithSize(48, 64, gocv.MatTypeCV8UC3)
	defer frame.Close()
	for _, tc := range []struct {
		srcFPS float64
		want   uint64 // frames kept over 4 s (inclusive ends)
	}{{25, 41}, {30, 41}, {60, 41}, {10, 41}, {7, 29}} {
		t.Run("", func(t *testing.T) {
			r := newRecorder(t, Config{Width: 64})
			feed(t, r, &frame, tc.srcFPS, 0, 4)
			if got := r.Stats().Kept; got != tc.want {
				t.Errorf("%v fps over 4 s: kept %d, want %d", tc.srcFPS, got, tc.want)
			}
		})
	}
}

func TestStaleMoment(t *testing.T) {
	r := newRecorder(t, Config{History: time.Second, Before: 500 * time.Millisecond, After: 500 * time.Millisecond, Width: 64})
	frame := gocv.NewMatWithSize(48, 64, gocv.MatTypeCV8UC3)
	defer frame.Close()
	if _, err := r.Save("early", 0, nil); !errors.Is(err, ErrNoFrames) {
		t.Errorf("Save before any frame = %v, want ErrNoFrames", err)
	}
	feed(t, r, &frame, 10, 0, 5)
	if got := r.Stats().Buffered; got != 16 { // 3.5 … 5.0: History + Before
		t.Errorf("%d frames held, want 16", got)
	}
	for _, tc := range []struct {
		t, want float64
		stale   bool
	}{{1, 3.5, true}, {3.45, 3.5, false}, {9, 5, true}} {
		p, err := r.Save("x", tc.t, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p.FrameT != tc.want || p.Stale != tc.stale {
			t.Errorf("Save at %v: frame %v stale %v, want %v %v", tc.t, p.FrameT, p.Stale, tc.want, tc.stale)
		}
	}
	if got := r.Stats().Stale; got != 2 {
		t.Errorf("%d stale, want 2", got)
	}
}

func TestTimeGoesBack(t *testing.T) {
	r := newRecorder(t, Config{Width: 64})
	frame := gocv.NewMatWithSize(48, 64, gocv.MatTypeCV8UC3)
	defer frame.Close()
	feed(t, r, &frame, 10, 0, 3)
	feed(t, r, &frame, 10, 0, 0.5)
	if s := r.Stats(); s.Buffered != 6 || s.Kept != 37 {
		t.Errorf("stats %+v, want 6 held of 37 kept", s)
	}
}

func TestAddRejects(t *testing.T) {
	r := newRecorder(t, Config{Width: 64})
	empty := gocv.NewMat()
	defer empty.Close()
	gray := gocv.NewMatWithSize(48, 64, gocv.MatTypeCV8U)
	defer gray.Close()
	tiny := gocv.NewMatWithSize(8, 8, gocv.MatTypeCV8UC3)
	defer tiny.Close()
	ok := gocv.NewMatWithSize(48, 64, gocv.MatTypeCV8UC3)
	defer ok.Close()
	for _, tc := range []struct {
		name string
		m    gocv.Mat
		t    float64
	}{{"empty", empty, 0}, {"gray", gray, 1}, {"tiny", tiny, 2}, {"NaN", ok, math.NaN()}} {
		if err := r.Add(tc.m, tc.t); err == nil {
			t.Errorf("Add(%s) succeeded", tc.name)
		}
	}
}

func TestRetention(t *testing.T) {
	now := time.Now()
	type file struct {
		name string
		age  time.Duration
		size int
	}
	for _, tc := range []struct {
		name     string
		cfg      Config
		files    []file
		want     []string // left, sorted
		pruned   uint64
		prunedSz uint64
	}{
		{
			name: "age",
			cfg:  Config{MaxAge: 24 * time.Hour},
			files: []file{
				{"a.jpg", 40 * 24 * time.Hour, 10}, {"a.mp4", 25 * time.Hour, 10},
				{"b.jpg", time.Hour, 10}, {"notes.txt", 40 * 24 * time.Hour, 10},
			},
			want:   []string{"b.jpg", "notes.txt"},
			pruned: 2, prunedSz: 20,
		},
		{
			name: "size, oldest first",
			cfg:  Config{MaxBytes: 2500},
			files: []file{
				{"1.jpg", 5 * time.Hour, 1000}, {"2.mp4", 4 * time.Hour, 1000}, {"3.jpg", 3 * time.Hour, 1000},
				{"4.mp4", 2 * time.Hour, 1000}, {"5.jpg", time.Hour, 1000},
			},
			want:   []string{"4.mp4", "5.jpg"},
			pruned: 3, prunedSz: 3000,
		},
		{
			name: "part files",
			cfg:  Config{},
			files: []file{
				{".old.part.mp4", 2 * time.Hour, 10}, {".new.part.mp4", time.Minute, 10},
			},
			want:   []string{".new.part.mp4"},
			pruned: 1, prunedSz: 10,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tc.files {
				p := filepath.Join(dir, f.name)
				if err := os.WriteFile(p, make([]byte, f.size), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(p, now.Add(-f.age), now.Add(-f.age)); err != nil {
					t.Fatal(err)
				}
			}
			tc.cfg.Dir = dir
			r := newRecorder(t, tc.cfg)
			var got []string
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				got = append(got, e.Name())
			}
			if !equal(got, tc.want) {
				t.Errorf("left %v, want %v", got, tc.want)
			}
			if s := r.Stats(); s.PrunedFiles != tc.pruned || s.PrunedBytes != tc.prunedSz {
				t.Errorf("pruned %d files %d bytes, want %d, %d", s.PrunedFiles, s.PrunedBytes, tc.pruned, tc.prunedSz)
			}
		})
	}
}

// TestRetentionAfterSave checks that a snapshot makes room by deleting
// the oldest evidence, without waiting for Close.
func TestRetentionAfterSave(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.jpg")
	if err := os.WriteFile(old, make([]byte, 4000), 0o600); err != nil {
		t.Fatal(err)
	}
	hourAgo := time.Now().Add(-time.Hour)
	os.Chtimes(old, hourAgo, hourAgo)
	r := newRecorder(t, Config{Dir: dir, MaxBytes: 5000, Width: 64})
	frame := gocv.NewMatWithSize(48, 64, gocv.MatTypeCV8UC3)
	defer frame.Close()
	gocv.RandU(&frame, gocv.NewScalar(0, 0, 0, 0), gocv.NewScalar(255, 255, 255, 0))
	for i := range 3 {
		if err := r.Add(frame, float64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Save("new", 1, nil); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); exists(old); {
		if time.Now().After(deadline) {
			t.Fatal("the oldest file was not deleted after a write")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestContextEnd checks that the background goroutine ends with the
// context, and that Close then still writes the pending clip.
func TestContextEnd(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r, err := New(ctx, Config{Dir: t.TempDir(), Width: 64, Before: 200 * time.Millisecond, After: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	frame := gocv.NewMatWithSize(48, 64, gocv.MatTypeCV8UC3)
	defer frame.Close()
	feed(t, r, &frame, 10, 0, 1)
	p, err := r.Save("x", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-r.done:
	case <-time.After(5 * time.Second):
		t.Fatal("background goroutine still running 5 s after the context ended")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if got := countFrames(t, p.Clip); got != 3 {
		t.Errorf("%d frames, want 3", got)
	}
}

func TestNearest(t *testing.T) {
	frames := []frame{{t: 1}, {t: 2}, {t: 4}}
	for _, tc := range []struct {
		t    float64
		want int
	}{{0, 0}, {1, 0}, {1.5, 0}, {1.6, 1}, {3, 1}, {3.1, 2}, {9, 2}} {
		if got := nearest(frames, tc.t); got != tc.want {
			t.Errorf("nearest(%v) = %d, want %d", tc.t, got, tc.want)
		}
	}
}

func TestKeptSize(t *testing.T) {
	for _, tc := range []struct{ cols, rows, width, w, h int }{
		{1920, 1080, 960, 960, 540},
		{3840, 2160, 960, 960, 540},
		{640, 480, 960, 640, 480},
		{641, 481, 960, 640, 480},
		{1280, 20, 640, 640, 16},
	} {
		if w, h := keptSize(tc.cols, tc.rows, tc.width); w != tc.w || h != tc.h {
			t.Errorf("keptSize(%d, %d, %d) = %d, %d, want %d, %d", tc.cols, tc.rows, tc.width, w, h, tc.w, tc.h)
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// BenchmarkAdd1080p measures Add on 1080p frames: "kept" when every call
// keeps its frame (downscale and JPEG), "30fps" for a 30 fps camera of
// which a third is kept, as live.
func BenchmarkAdd1080p(b *testing.B) {
	frame := gocv.NewMatWithSize(1080, 1920, gocv.MatTypeCV8UC3)
	defer frame.Close()
	gocv.RandU(&frame, gocv.NewScalar(0, 0, 0, 0), gocv.NewScalar(255, 255, 255, 0))
	gocv.GaussianBlur(frame, &frame, image.Pt(15, 15), 0, 0, gocv.BorderDefault) // closer to a photo than noise
	for _, bc := range []struct {
		name string
		step float64
	}{{"kept", 0.1}, {"30fps", 1.0 / 30}} {
		b.Run(bc.name, func(b *testing.B) {
			r := newRecorder(b, Config{})
			b.ResetTimer()
			for i := range b.N {
				if err := r.Add(frame, float64(i)*bc.step); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			s := r.Stats()
			if s.Buffered > 0 {
				b.ReportMetric(float64(s.BufferedBytes)/float64(s.Buffered)/1024, "KiB/frame")
			}
		})
	}
}

// BenchmarkClip measures encoding a default clip (8 s at 10 fps, 960×540)
// from kept frames, as the background goroutine does.
func BenchmarkClip(b *testing.B) {
	src := gocv.NewMatWithSize(1080, 1920, gocv.MatTypeCV8UC3)
	defer src.Close()
	gocv.RandU(&src, gocv.NewScalar(0, 0, 0, 0), gocv.NewScalar(255, 255, 255, 0))
	gocv.GaussianBlur(src, &src, image.Pt(15, 15), 0, 0, gocv.BorderDefault)
	r := newRecorder(b, Config{})
	for i := range 81 {
		if err := r.Add(src, float64(i)/10); err != nil {
			b.Fatal(err)
		}
	}
	r.mu.Lock()
	frames := append([]frame(nil), r.frames...)
	r.mu.Unlock()
	b.ResetTimer()
	for i := range b.N {
		c := &clip{path: filepath.Join(r.cfg.Dir, fmt.Sprintf("b%d.mp4", i)), frames: frames}
		if err := r.writeClip(context.Background(), c); err != nil {
			b.Fatal(err)
		}
		r.lastClip.key = clipKey{} // no linking
	}
}
