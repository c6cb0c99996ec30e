package vision_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"bjmonitor/testvideos/scene"
	"bjmonitor/testvideos/script"
	"bjmonitor/vision"
	"bjmonitor/vision/classify"
)

// BenchmarkDetect measures the detector on 1080p table video: "typical"
// replays a dealt round frame by frame (mostly still felt, the dealer's
// hand now and then), "everything changed" makes every zone read afresh
// each frame. Its frames take turns between two rounds' fullest moments
// (every seat and the dealer holding cards, no hand over them), so no
// corner looks as it did when last read and every crop goes to the model.
// Pips are counted and their suits read (Options.Suits), as the monitor
// runs; "without pips" is "everything changed" without Options.CountPips.
// "no model" is "everything changed" with a reader that answers none at
// once: what the detector's own work costs, which no model can save.
// "grid only" is the part of that every zone read needs whatever it finds:
// the table rectified at 2 px/mm under all the zones, its grey picture and
// its paper and skin tests.
// Rendering is done before the timer starts.
func BenchmarkDetect(b *testing.B) {
	cfg := script.DefaultConfig()
	cfg.Rounds, cfg.Seed = 2, 3
	cfg.Players = []int{1, 2, 3, 4, 5, 6, 7}
	st := newStage(b, cfg, scene.DefaultConfig())
	model, suits := openReader(b), openSuits(b)
	frames := min(st.s.Frames, 250)
	if testing.Short() {
		frames = 50
	}
	rendered := make([][]byte, 0, frames)
	for f := 0; f < frames; f++ {
		if err := st.render(f + st.s.Rounds[0].StartFrame); err != nil {
			b.Fatal(err)
		}
		rendered = append(rendered, st.frame.ToBytes())
	}
	var full [][]byte
	for _, r := range st.s.Rounds {
		f, err := fullestFrame(st.s, r)
		if err != nil {
			b.Fatal(err)
		}
		if err := st.render(f); err != nil {
			b.Fatal(err)
		}
		full = append(full, st.frame.ToBytes())
	}
	for _, mode := range []string{"typical", "everything changed", "without pips", "no model", "grid only"} {
		b.Run(mode, func(b *testing.B) {
			clf := &timedReader{r: model}
			if mode == "no model" {
				clf.r = noneReader{}
			}
			opts := vision.DefaultOptions()
			opts.CountPips = mode != "without pips"
			opts.Suits = suits // as the monitor runs
			det, err := vision.NewDetector(st.cal, clf, opts)
			if err != nil {
				b.Fatal(err)
			}
			defer det.Close()
			var cpu time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				frame := rendered[i%len(rendered)]
				if mode != "typical" {
					frame = full[i%len(full)]
					det.Forget()
				}
				b.StopTimer()
				if err := st.loadBytes(frame); err != nil {
					b.Fatal(err)
				}
				// The last frame's batches are kept for alone: copying
				// them costs that frame some 0.1 ms.
				clf.record = mode == "everything changed" && i == b.N-1
				b.StartTimer()
				before := cpuTime()
				if mode == "grid only" {
					det.GridOnly(st.frame)
				} else if _, err := det.Detect(st.frame, i, 0); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - before
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
			// The machine is often shared: the CPU time a frame took, on
			// all threads, tells more than the wall clock then.
			b.ReportMetric(cpu.Seconds()*1000/float64(b.N), "cpu-ms/frame")
			if mode == "grid only" {
				return
			}
			// The model's share, to tell the detector's own cost from the
			// crops' (the model is replaced on its own schedule).
			b.ReportMetric(clf.wall.Seconds()*1000/float64(b.N), "model-ms/frame")
			st := det.Stats()
			b.ReportMetric(float64(st.Zones)/float64(st.Frames), "zones/frame")
			b.ReportMetric(float64(st.Crops)/float64(st.Frames), "crops/frame")
			b.ReportMetric(float64(clf.none)/float64(st.Frames), "none/frame")
			if mode == "everything changed" {
				// In Detect the model reads one zone while the workers
				// prepare the next, and its wall time there is stretched
				// by theirs: the last frame's crops are read again with
				// nothing else running.
				wall, cpu := clf.alone(b, b.N)
				b.ReportMetric(wall.Seconds()*1000, "model-alone-ms/frame")
				b.ReportMetric(cpu.Seconds()*1000, "model-alone-cpu-ms/frame")
			}
		})
	}
}

// noneReader answers none for every crop, at once.
type noneReader struct{}

func (noneReader) Classify(crops []gocv.Mat) ([]classify.Result, error) {
	return make([]classify.Result, len(crops)), nil
}

// fullestFrame returns the frame of round r with the most cards on the
// felt and no arm over it. It fails unless every seat of the round and
// the dealer hold cards there.
func fullestFrame(s *script.Script, r script.Round) (int, error) {
	best, most := -1, 0
	for f := r.StartFrame; f < r.EndFrame; f++ {
		if _, busy := s.ArmAt(f); busy {
			continue
		}
		if n := len(s.At(f)); n > most {
			best, most = f, n
		}
	}
	if best < 0 {
		return 0, fmt.Errorf("round %s: no frame without an arm", r.ID)
	}
	seats := map[int]bool{}
	for _, p := range s.At(best) {
		seats[p.Card.Seat] = true
	}
	for _, c := range s.Cards {
		if c.Round == r.ID && !seats[c.Seat] {
			return 0, fmt.Errorf("round %s frame %d: seat %d holds no card", r.ID, best, c.Seat)
		}
	}
	return best, nil
}

// timedReader is a Reader that adds up the wall time its reader takes and
// counts the crops it reads as none (no index there: work the corner
// finders could have spared the model). While record is set it keeps a
// copy of every batch it is given.
type timedReader struct {
	r       vision.Reader
	wall    time.Duration
	none    int
	record  bool
	batches [][]gocv.Mat
}

func (t *timedReader) Classify(crops []gocv.Mat) ([]classify.Result, error) {
	if t.record {
		kept := make([]gocv.Mat, len(crops))
		for i, c := range crops {
			kept[i] = c.Clone()
		}
		t.batches = append(t.batches, kept)
	}
	start := time.Now()
	res, err := t.r.Classify(crops)
	t.wall += time.Since(start)
	for _, r := range res {
		if r.None() {
			t.none++
		}
	}
	return res, err
}

// alone returns the wall and CPU time the reader takes, with nothing else
// running, to read the batches it kept of the last frame (the mean of n
// reads, at least 10). Those are the batches of a frame read afresh: a
// frame read again at once would find most of its crops as they were,
// and send few to the model (sessions 10 and 11 measured 4 crops so,
// where the frame sent 63).
func (t *timedReader) alone(b *testing.B, n int) (wall, cpu time.Duration) {
	defer func() {
		for _, batch := range t.batches {
			for _, m := range batch {
				m.Close()
			}
		}
		t.batches, t.record = nil, false
	}()
	crops := 0
	for _, batch := range t.batches {
		crops += len(batch)
	}
	if crops == 0 {
		b.Fatal("no batch kept of the last frame")
	}
	n = max(n, 10)
	start, before := time.Now(), cpuTime()
	for range n {
		for _, batch := range t.batches {
			if _, err := t.r.Classify(batch); err != nil {
				b.Fatal(err)
			}
		}
	}
	return time.Since(start) / time.Duration(n), (cpuTime() - before) / time.Duration(n)
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
