package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"bjmonitor/alerts"
	"bjmonitor/calibration"
	"bjmonitor/capture"
	"bjmonitor/controller"
	"bjmonitor/evaluator"
	"bjmonitor/game"
	"bjmonitor/internal/matleak"
	"bjmonitor/pipeline"
	"bjmonitor/vision"
)

// TestMain fails the run when a test leaked a Mat; the check is live with
// -tags matprofile.
func TestMain(m *testing.M) { os.Exit(matleak.Run(m)) }

// fakeSource yields n blank frames at fps, numbered from 1; a frame whose
// index grab says is only decoded comes Grabbed. After the last frame it
// returns end (io.EOF), or calls stop and waits for ctx when end is nil.
type fakeSource struct {
	n     int
	fps   float64
	grab  func(index int) bool
	end   error
	stop  context.CancelFunc
	seq   int
	blank gocv.Mat
}

var _ Source = (*fakeSource)(nil)

func (s *fakeSource) Next(ctx context.Context, dst *gocv.Mat) (capture.Info, error) {
	if s.seq == s.n {
		if s.end != nil {
			return capture.Info{}, s.end
		}
		if s.stop != nil {
			s.stop()
		}
		<-ctx.Done()
		return capture.Info{}, ctx.Err()
	}
	info := capture.Info{Seq: uint64(s.seq + 1), Time: time.Now()}
	if s.grab != nil && s.grab(s.seq) {
		info.Grabbed = true
	} else {
		s.blank.CopyTo(dst)
	}
	s.seq++
	return info, nil
}

func (s *fakeSource) FPS() float64 { return s.fps }

// recorder is a sink that writes down what it is handed.
type recorder struct {
	frames, unread, read []int
	rounds               []string // "id@index"
	unreadErr            error    // what Unread returns
}

var _ Sink = (*recorder)(nil)

func (r *recorder) Frame(at At, f Frame) error { r.frames = append(r.frames, at.Index); return nil }
func (r *recorder) Unread(at At, f Frame, err error) error {
	if !errors.Is(err, calibration.ErrCalibration) {
		return fmt.Errorf("unexpected error: %w", err)
	}
	r.unread = append(r.unread, at.Index)
	return r.unreadErr
}
func (r *recorder) Read(at At, f Frame, seen vision.Frame) error {
	r.read = append(r.read, at.Index)
	return nil
}
func (r *recorder) Results(ctx context.Context, at At, res []pipeline.Result) error {
	for _, x := range res {
		r.rounds = append(r.rounds, fmt.Sprintf("%s@%d", x.Round.ID, at.Index))
	}
	return nil
}

// opener opens a pipeline on the sample table; its frames are blank, so
// every frame read fails to calibrate.
func opener(tb testing.TB) func(fps float64) (*pipeline.Pipeline, error) {
	tb.Helper()
	table, err := calibration.Load(filepath.Join("..", "testvideos", "freebet-1080p.table.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return func(fps float64) (*pipeline.Pipeline, error) {
		meter, err := evaluator.NewMeter(1000, 0.15, 0)
		if err != nil {
			return nil, err
		}
		return pipeline.New(pipeline.Config{
			Table: table, Model: filepath.Join("..", "models", "cardindex", "cardindex.onnx"), FPS: fps,
			Controlled: true, Rules: game.DefaultRules(), Meter: meter,
			Reconcile: alerts.Config{Table: "t", Rules: game.DefaultRules(), Tables: evaluator.DefaultPayTables()},
		})
	}
}

func at(t float64, e controller.Event) controller.Event { return controller.At(t, e) }

// TestRun drives blank frames through a real pipeline: every frame goes to
// the sink, one in two is read (and fails to calibrate, which the sink
// lets pass), the controller's events are applied at the first frame
// within half a frame of their time, and the round in play is judged at
// the source's end.
func TestRun(t *testing.T) {
	blank := gocv.NewMatWithSize(1080, 1920, gocv.MatTypeCV8UC3)
	defer blank.Close()
	tests := []struct {
		name       string
		grab       func(int) bool
		fps, guess float64
		events     []controller.Event
		wantRounds []string
		wantRead   []int
	}{
		{
			name: "round ended by the controller",
			fps:  25,
			events: []controller.Event{
				at(0.1, controller.Event{Type: controller.GameStart, Round: "1"}),
				// 0.49 s is due at frame 12 (0.48 s), within half a frame.
				at(0.49, controller.Event{Type: controller.GameEnd, Round: "1"}),
				at(0.6, controller.Event{Type: controller.GameStart, Round: "2"}),
			},
			wantRounds: []string{"1@12"}, // round 2 saw no card: nothing to judge
			wantRead:   []int{0, 2, 4, 6, 8, 10, 12, 14, 16, 18},
		},
		{
			name: "a source that skips decoding",
			fps:  25, grab: func(i int) bool { return i%2 == 1 },
			events: []controller.Event{
				at(0.1, controller.Event{Type: controller.GameStart, Round: "1"}),
				at(0.29, controller.Event{Type: controller.GameEnd, Round: "1"}), // on a frame grabbed only
			},
			wantRounds: []string{"1@7"},
			wantRead:   []int{0, 2, 4, 6, 8, 10, 12, 14, 16, 18},
		},
		{
			name: "events past the last frame are left",
			fps:  25,
			events: []controller.Event{
				at(0, controller.Event{Type: controller.GameStart, Round: "1"}),
				at(100, controller.Event{Type: controller.GameEnd, Round: "1"}),
			},
			wantRead: []int{0, 2, 4, 6, 8, 10, 12, 14, 16, 18},
		},
		{
			name: "a frame rate guessed",
			fps:  0, guess: 10,
			events: []controller.Event{
				at(0, controller.Event{Type: controller.GameStart, Round: "1"}),
				at(1.5, controller.Event{Type: controller.GameEnd, Round: "1"}),
			},
			wantRounds: []string{"1@15"},
			wantRead:   seq(20), // 10 frames a second: every one is read
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &fakeSource{n: 20, fps: tt.fps, grab: tt.grab, end: io.EOF, blank: blank}
			sink := &recorder{}
			d := New(Config{Open: opener(t), GuessFPS: tt.guess, AnalysisFPS: 12.5}, sink)
			for _, e := range tt.events {
				d.Put(e)
			}
			if err := d.Run(context.Background(), src); err != nil {
				t.Fatalf("Run = %v", err)
			}
			if !slices.Equal(sink.frames, seq(20)) {
				t.Errorf("frames handed to the sink %v, want 0 to 19", sink.frames)
			}
			if !slices.Equal(sink.unread, tt.wantRead) || len(sink.read) != 0 {
				t.Errorf("frames unread %v and read %v, want %v unread (blank frames do not calibrate)", sink.unread, sink.read, tt.wantRead)
			}
			if !slices.Equal(sink.rounds, tt.wantRounds) {
				t.Errorf("rounds %v, want %v", sink.rounds, tt.wantRounds)
			}
		})
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestRunEnds: how Run ends when the source has nothing, the frame rate
// is unknown, the sink refuses a frame, or ctx ends with or without Drain.
func TestRunEnds(t *testing.T) {
	blank := gocv.NewMatWithSize(1080, 1920, gocv.MatTypeCV8UC3)
	defer blank.Close()
	refused := errors.New("refused")
	tests := []struct {
		name       string
		src        *fakeSource
		cfg        Config
		unreadErr  error
		events     []controller.Event
		want       error
		wantRounds []string
	}{
		{name: "no frame", src: &fakeSource{fps: 25, end: io.EOF}, want: ErrNoFrame},
		{name: "no frame rate", src: &fakeSource{n: 3, end: io.EOF}, want: errors.New("the source reports 0 frames a second; cannot time it")},
		{name: "sink refuses", src: &fakeSource{n: 3, fps: 25, end: io.EOF}, unreadErr: refused, want: refused},
		{
			name: "cancelled", src: &fakeSource{n: 3, fps: 25},
			events: []controller.Event{{Type: controller.GameStart, Round: "1"}, at(50, controller.Event{Type: controller.GameEnd, Round: "1"})},
			want:   context.Canceled,
		},
		{
			name: "cancelled, drained", src: &fakeSource{n: 3, fps: 25}, cfg: Config{Drain: true},
			events: []controller.Event{{Type: controller.GameStart, Round: "1"}, at(50, controller.Event{Type: controller.GameEnd, Round: "1"})},
			// The game_end held for later is applied at the end.
			wantRounds: []string{"1@2"},
		},
		{
			name: "drained before any frame", src: &fakeSource{fps: 25}, cfg: Config{Drain: true},
			events: []controller.Event{{Type: controller.GameStart, Round: "1"},
				{Type: controller.Wager, Round: "1", Seat: 1, Bet: "21+3", Amount: 5},
				{Type: controller.GameEnd, Round: "1"}},
			wantRounds: []string{"1@0"},
		},
		{name: "drained with nothing to do", src: &fakeSource{fps: 25}, cfg: Config{Drain: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.src.blank = blank
			sink := &recorder{unreadErr: tt.unreadErr}
			cfg := tt.cfg
			cfg.Open = opener(t)
			d := New(cfg, sink)
			for _, e := range tt.events {
				d.Put(e)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tt.src.stop = cancel
			err := d.Run(ctx, tt.src)
			switch {
			case tt.want == nil && err != nil, tt.want != nil && err == nil:
				t.Errorf("Run = %v, want %v", err, tt.want)
			case tt.want != nil && !errors.Is(err, tt.want) && err.Error() != tt.want.Error():
				t.Errorf("Run = %v, want %v", err, tt.want)
			}
			if !slices.Equal(sink.rounds, tt.wantRounds) {
				t.Errorf("rounds %v, want %v", sink.rounds, tt.wantRounds)
			}
		})
	}
}

// TestIdle: while no frame comes, events are applied as the wall clock
// reaches them.
func TestIdle(t *testing.T) {
	blank := gocv.NewMatWithSize(1080, 1920, gocv.MatTypeCV8UC3)
	defer blank.Close()
	sink := &recorder{}
	d := New(Config{Open: opener(t), Idle: 20 * time.Millisecond}, sink)
	d.Put(controller.Event{Type: controller.GameStart, Round: "1"})
	d.Put(at(0.2, controller.Event{Type: controller.GameEnd, Round: "1"}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx, &fakeSource{n: 1, fps: 25, blank: blank}) }()
	// The one frame is at 0 s; the game_end at 0.2 s comes by the clock.
	time.Sleep(time.Second)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	if !slices.Equal(sink.rounds, []string{"1@0"}) {
		t.Errorf("rounds %v, want round 1 judged while no frame came", sink.rounds)
	}
}
