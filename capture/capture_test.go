package capture

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"bjmonitor/internal/matleak"
	"bjmonitor/video"
)

func TestMain(m *testing.M) { os.Exit(matleak.Run(m)) }

// fakeSource yields frames whose pixels hold their number (mod 256).
type fakeSource struct {
	frames int // reads that succeed; -1: endless
	delay  time.Duration
	fps    float64
	n      int
	closed bool
}

var _ source = (*fakeSource)(nil)

func (f *fakeSource) Read(m *gocv.Mat) bool {
	if f.closed || f.frames >= 0 && f.n >= f.frames {
		return false
	}
	time.Sleep(f.delay)
	f.n++
	v := float64(f.n % 256)
	tmp := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(v, v, v, 0), 4, 4, gocv.MatTypeCV8UC3)
	defer tmp.Close()
	tmp.CopyTo(m)
	return true
}

func (f *fakeSource) Get(gocv.VideoCaptureProperties) float64 { return f.fps }
func (f *fakeSource) Close() error                            { f.closed = true; return nil }

// script is an opener that fails first times, then hands out sources in
// turn (the last one again and again, fresh each time).
type script struct {
	mu      sync.Mutex
	fail    int
	sources []fakeSource
	opens   int
}

func (s *script) open(Config) (source, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opens++
	if s.opens <= s.fail {
		return nil, fmt.Errorf("camera off (%d)", s.opens)
	}
	i := min(s.opens-s.fail-1, len(s.sources)-1)
	src := s.sources[i]
	return &src, nil
}

var fast = []time.Duration{time.Millisecond, 2 * time.Millisecond}

// startFake starts a Capture on s, closed at the end of the test.
func startFake(tb testing.TB, cfg Config, s *script) *Capture {
	tb.Helper()
	if cfg.Backoff == nil {
		cfg.Backoff = fast
	}
	c, err := start(context.Background(), cfg, nil, s.open)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// next calls Next with a time limit.
func next(tb testing.TB, c *Capture, dst *gocv.Mat) Info {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	info, err := c.Next(ctx, dst)
	if err != nil {
		tb.Fatalf("Next: %v (stats %+v)", err, c.Stats())
	}
	return info
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   Config
		field string
	}{
		{"no source", Config{}, "Source"},
		{"scheme", Config{Source: "ftp://cam/x"}, "Source"},
		{"no host", Config{Source: "rtsp:///stream"}, "Source"},
		{"bad url", Config{Source: "rtsp://cam:port/x"}, "Source"},
		{"huge index", Config{Source: "99999999999999999999"}, "Source"},
		{"zero backoff", Config{Source: "0", Backoff: []time.Duration{time.Second, 0}}, "Backoff[1]"},
		{"negative backoff", Config{Source: "0", Backoff: []time.Duration{-time.Second}}, "Backoff[0]"},
		{"negative timeout", Config{Source: "rtsp://cam/x", Timeout: -1}, "Timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Start(context.Background(), tc.cfg, nil)
			if err == nil {
				c.Close()
				t.Fatalf("Start(%+v) succeeded", tc.cfg)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != tc.field {
				t.Errorf("Start(%+v) = %v, want an error on %s", tc.cfg, err, tc.field)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want kind
	}{
		{"0", kindDevice}, {"/dev/video2", kindDevice}, {"/dev/v4l/by-id/usb-cam-video-index0", kindDevice},
		{"rtsp://user:pw@10.0.0.5:554/stream1", kindStream}, {"https://cam/mjpeg", kindStream},
		{"testvideos/a.mp4", kindFile}, {"/srv/video/2026-11-29.mkv", kindFile},
	} {
		if got, err := classify(tc.src); got != tc.want || err != nil {
			t.Errorf("classify(%q) = %v, %v, want %v", tc.src, got, err, tc.want)
		}
	}
	if got := redact("rtsp://user:secret@cam/x"); got != "rtsp://user:xxxxx@cam/x" {
		t.Errorf("redact = %s", got)
	}
}

// TestStartsWhileSourceIsOff checks that Start succeeds while the source
// cannot be opened, and that the first frame comes once it can.
func TestStartsWhileSourceIsOff(t *testing.T) {
	s := &script{fail: 3, sources: []fakeSource{{frames: -1, delay: time.Millisecond}}}
	c := startFake(t, Config{Source: "0"}, s)
	frame := gocv.NewMat()
	defer frame.Close()
	info := next(t, c, &frame)
	if info.Seq != 1 || info.Reconnected {
		t.Errorf("first frame %+v, want Seq 1, not reconnected", info)
	}
	st := c.Stats()
	if st.OpenFailures != 3 || st.Reconnects != 0 || !st.Connected || st.LastError == nil {
		t.Errorf("stats %+v, want 3 failed opens, connected, no reconnect", st)
	}
}

// TestSourceDiesAndComesBack checks that a source that fails mid-stream
// is opened again, and that the first frame after says so, once.
func TestSourceDiesAndComesBack(t *testing.T) {
	s := &script{sources: []fakeSource{{frames: 5, delay: time.Millisecond}, {frames: -1, delay: time.Millisecond}}}
	c := startFake(t, Config{Source: "0"}, s)
	frame := gocv.NewMat()
	defer frame.Close()
	var prev uint64
	reconnects := 0
	for prev < 20 {
		info := next(t, c, &frame)
		if info.Seq <= prev {
			t.Fatalf("Seq %d after %d", info.Seq, prev)
		}
		if info.Reconnected {
			reconnects++
			if info.Seq < 6 {
				t.Errorf("frame %d says reconnected; the first source gave 5", info.Seq)
			}
		}
		prev = info.Seq
	}
	if reconnects != 1 {
		t.Errorf("%d frames said reconnected, want 1", reconnects)
	}
	if st := c.Stats(); st.Reconnects != 1 || st.LastError == nil {
		t.Errorf("stats %+v, want 1 reconnect and the read error", st)
	}
}

// TestDropped checks that a slow consumer is told how many frames it
// missed, and that every frame read is taken, dropped, or the newest.
func TestDropped(t *testing.T) {
	s := &script{sources: []fakeSource{{frames: -1, delay: time.Millisecond}}}
	c := startFake(t, Config{Source: "0"}, s)
	frame := gocv.NewMat()
	defer frame.Close()
	var prev uint64
	taken, dropped := 0, 0
	for range 10 {
		info := next(t, c, &frame)
		if got := int(info.Seq - prev - 1); info.Dropped != got {
			t.Errorf("frame %d after %d: Dropped %d, want %d", info.Seq, prev, info.Dropped, got)
		}
		if v := frame.GetUCharAt(0, 0); v != uint8(info.Seq%256) {
			t.Errorf("frame %d holds %d: not the newest", info.Seq, v)
		}
		prev = info.Seq
		taken++
		dropped += info.Dropped
		time.Sleep(15 * time.Millisecond)
	}
	c.Close()
	st := c.Stats()
	if dropped == 0 {
		t.Error("a consumer 15 times slower than the source dropped nothing")
	}
	if rest := st.Frames - st.Dropped - uint64(taken); rest > 1 || st.Dropped < uint64(dropped) {
		t.Errorf("stats %+v: %d taken, %d dropped seen", st, taken, dropped)
	}
}

// TestFileWithoutRealtime checks that a file read without pacing loses
// no frame to a slow consumer.
func TestFileWithoutRealtime(t *testing.T) {
	s := &script{sources: []fakeSource{{frames: 20}}}
	c := startFake(t, Config{Source: "clip.mp4", Realtime: false}, s)
	frame := gocv.NewMat()
	defer frame.Close()
	for i := 1; i <= 20; i++ {
		info := next(t, c, &frame)
		if info.Seq != uint64(i) || info.Dropped != 0 {
			t.Fatalf("frame %+v, want Seq %d, none dropped", info, i)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestStop checks that the reader ends with the context or Close, also
// while it waits to retry, and leaves no goroutine behind.
func TestStop(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, tc := range []struct {
		name   string
		script *script
		cancel bool
	}{
		{"reading, context", &script{sources: []fakeSource{{frames: -1, delay: time.Millisecond}}}, true},
		{"reading, Close", &script{sources: []fakeSource{{frames: -1, delay: time.Millisecond}}}, false},
		{"waiting to retry, context", &script{fail: 1 << 30}, true},
		{"waiting to retry, Close", &script{fail: 1 << 30}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c, err := start(ctx, Config{Source: "0", Backoff: []time.Duration{time.Hour}}, nil, tc.script.open)
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(20 * time.Millisecond)
			stopped := time.Now()
			if tc.cancel {
				cancel()
				select {
				case <-c.done:
				case <-time.After(2 * time.Second):
					t.Fatal("reader still running 2 s after the context ended")
				}
			}
			c.Close()
			if d := time.Since(stopped); d > time.Second {
				t.Errorf("stopping took %v", d)
			}
			frame := gocv.NewMat()
			defer frame.Close()
			if _, err := c.Next(context.Background(), &frame); !errors.Is(err, ErrClosed) {
				t.Errorf("Next after stop = %v, want ErrClosed", err)
			}
			if err := c.Close(); err != nil {
				t.Errorf("second Close = %v", err)
			}
		})
	}
	for deadline := time.Now().Add(2 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestNextContext checks that Next gives up with its own context.
func TestNextContext(t *testing.T) {
	c := startFake(t, Config{Source: "0", Backoff: []time.Duration{time.Hour}}, &script{fail: 1 << 30})
	frame := gocv.NewMat()
	defer frame.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.Next(ctx, &frame); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Next = %v, want the deadline", err)
	}
}

// writeClip writes a 64×48 clip of n frames at fps.
func writeClip(tb testing.TB, path string, n int, fps float64) {
	tb.Helper()
	w, err := video.Create(path, fps, 64, 48, video.DefaultCRF)
	if err != nil {
		tb.Fatal(err)
	}
	m := gocv.NewMatWithSize(48, 64, gocv.MatTypeCV8UC3)
	defer m.Close()
	for i := range n {
		m.SetTo(gocv.NewScalar(float64(i*8), 128, 64, 0))
		if err := w.Write(m); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
}

// TestFile reads a real file: paced and looping, then renamed away and
// back while it is being read.
func TestFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "table.mp4")
	writeClip(t, path, 30, 60) // half a second
	frame := gocv.NewMat()
	defer frame.Close()

	t.Run("paced loop", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.Source, cfg.Loop = path, true
		c, err := Start(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		begin := time.Now()
		loops := 0
		for range 45 {
			info := next(t, c, &frame)
			if info.Reconnected {
				loops++
			}
			if frame.Cols() != 64 || frame.Rows() != 48 {
				t.Fatalf("frame %dx%d, want 64x48", frame.Cols(), frame.Rows())
			}
		}
		if d := time.Since(begin); d < 600*time.Millisecond {
			t.Errorf("45 frames of a 60 fps file in %v: not paced", d)
		}
		if loops != 1 {
			t.Errorf("%d frames said reconnected over 1.5 passes, want 1", loops)
		}
		if st := c.Stats(); st.Reconnects != 1 || st.LastError != nil || st.FPS != 60 {
			t.Errorf("stats %+v, want 1 reconnect (the loop), no error, 60 fps", st)
		}
	})

	t.Run("renamed away and back", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.Source, cfg.Backoff = path, []time.Duration{50 * time.Millisecond}
		c, err := Start(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		next(t, c, &frame)
		away := filepath.Join(dir, "away.mp4")
		if err := os.Rename(path, away); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(5 * time.Second); c.Stats().OpenFailures == 0; {
			if time.Now().After(deadline) {
				t.Fatalf("no failed open 5 s after the file went: %+v", c.Stats())
			}
			time.Sleep(10 * time.Millisecond)
		}
		if st := c.Stats(); st.Connected || !errors.Is(st.LastError, os.ErrNotExist) {
			t.Errorf("stats %+v, want disconnected, file not found", st)
		}
		if err := os.Rename(away, path); err != nil {
			t.Fatal(err)
		}
		for {
			if info := next(t, c, &frame); info.Reconnected {
				break
			}
		}
		if st := c.Stats(); !st.Connected || st.Reconnects == 0 {
			t.Errorf("stats %+v, want connected again", st)
		}
	})
}

// TestStreamTimeout checks that opening a stream whose server accepts
// the connection and then says nothing gives up after Timeout, not after
// OpenCV's 30 s.
func TestStreamTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a timeout")
	}
	if _, set := os.LookupEnv("OPENCV_FFMPEG_CAPTURE_OPTIONS"); set {
		t.Skip("OPENCV_FFMPEG_CAPTURE_OPTIONS is set")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var conns sync.WaitGroup
	conns.Go(func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, conn) // never answers
		}
	})
	cfg := DefaultConfig()
	cfg.Source = "rtsp://" + l.Addr().String() + "/stream"
	cfg.Timeout = time.Second
	cfg.Backoff = []time.Duration{time.Hour}
	begin := time.Now()
	c, err := Start(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for c.Stats().OpenFailures == 0 {
		if time.Since(begin) > 10*time.Second {
			t.Fatal("open still waiting after 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("open failed after %v: %v", time.Since(begin), c.Stats().LastError)
	c.Close()
	l.Close()
	conns.Wait()
}

// TestNetworkStreamDropsAndComesBack reads a live stream served by ffmpeg
// over HTTP (MPEG-TS, as an IP camera or encoder serves it), has the
// server stop mid-stream, and serves it again: the capture reconnects and
// frames flow again.
func TestNetworkStreamDropsAndComesBack(t *testing.T) {
	if testing.Short() {
		t.Skip("streams video in real time")
	}
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Skip("ffmpeg not installed")
	}
	dir := t.TempDir()
	clip := filepath.Join(dir, "camera.mp4")
	writeClip(t, clip, 25, 25)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	url := "http://" + addr + "/camera.ts"
	// serve streams the clip over and over, in real time, to one client,
	// until stopped.
	serve := func() *exec.Cmd {
		cmd := exec.Command(ffmpeg, "-v", "error", "-re", "-stream_loop", "-1", "-i", clip,
			"-c", "copy", "-f", "mpegts", "-listen", "1", url)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	server := serve()
	cfg := DefaultConfig()
	cfg.Source, cfg.Backoff = url, []time.Duration{100 * time.Millisecond}
	c, err := Start(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	frame := gocv.NewMat()
	defer frame.Close()
	for range 10 {
		next(t, c, &frame)
	}
	if frame.Cols() != 64 || !c.Stats().Connected {
		t.Fatalf("frame %dx%d, stats %+v", frame.Cols(), frame.Rows(), c.Stats())
	}
	server.Process.Kill()
	server.Wait()
	for deadline := time.Now().Add(10 * time.Second); c.Stats().Connected; {
		if time.Now().After(deadline) {
			t.Fatalf("still connected 10 s after the server went: %+v", c.Stats())
		}
		time.Sleep(20 * time.Millisecond)
	}
	lost := c.Stats()
	serve()
	reconnected := false
	for range 50 {
		if next(t, c, &frame).Reconnected {
			reconnected = true
			break
		}
	}
	if !reconnected {
		t.Errorf("no frame said reconnected after the server came back: %+v", c.Stats())
	}
	t.Logf("tried: an HTTP stream served, killed, served again; survived: %d frames before, reconnected after %d failed opens", lost.Frames, c.Stats().OpenFailures)
}

// TestRepeatLog: a source that keeps failing is reported as a warning
// when its error is new, and again at most once a minute.
func TestRepeatLog(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	off, gone := errors.New("camera off"), errors.New("no such device")
	steps := []struct {
		after time.Duration
		err   error
		want  slog.Level
	}{
		{0, off, slog.LevelWarn},
		{time.Second, off, slog.LevelDebug},
		{3 * time.Second, off, slog.LevelDebug},
		{59 * time.Second, off, slog.LevelDebug},
		{61 * time.Second, off, slog.LevelWarn}, // a minute since the last warning
		{71 * time.Second, off, slog.LevelDebug},
		{81 * time.Second, gone, slog.LevelWarn}, // a new error at once
		{91 * time.Second, off, slog.LevelWarn},
		{101 * time.Second, off, slog.LevelDebug},
	}
	var r repeatLog
	for _, s := range steps {
		if got := r.level(s.err, t0.Add(s.after)); got != s.want {
			t.Errorf("at %v, %v: level %v, want %v", s.after, s.err, got, s.want)
		}
	}
}
