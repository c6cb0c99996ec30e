package vision_test

import (
	"syscall"
	"testing"
	"time"

	"bjmonitor/testvideos/scene"
	"bjmonitor/testvideos/script"
	"bjmonitor/vision"
	"bjmonitor/vision/classify"
)

// BenchmarkDetect measures the detector on 1080p table video: "typical"
// replays a dealt round frame by frame (mostly still felt, the dealer's
// hand now and then), "everything changed" makes every zone read afresh
// each frame. Rendering is done before the timer starts.
func BenchmarkDetect(b *testing.B) {
	cfg := script.DefaultConfig()
	cfg.Rounds, cfg.Seed = 1, 3
	cfg.Players = []int{1, 2, 3, 4, 5, 6, 7}
	st := newStage(b, cfg, scene.DefaultConfig())
	clf, err := classify.Open(modelPath)
	if err != nil {
		b.Fatal(err)
	}
	defer clf.Close()
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
	for _, mode := range []string{"typical", "everything changed"} {
		b.Run(mode, func(b *testing.B) {
			det, err := vision.NewDetector(st.cal, clf, vision.DefaultOptions())
			if err != nil {
				b.Fatal(err)
			}
			defer det.Close()
			var cpu time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k := i % len(rendered)
				if mode == "typical" || i == 0 {
					b.StopTimer()
					if err := st.loadBytes(rendered[k]); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				if mode != "typical" {
					det.Forget()
				}
				before := cpuTime()
				if _, err := det.Detect(st.frame, i, 0); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - before
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
			// The machine is often shared: the CPU time a frame took, on
			// all threads, tells more than the wall clock then.
			b.ReportMetric(cpu.Seconds()*1000/float64(b.N), "cpu-ms/frame")
			b.ReportMetric(float64(det.ZonesDetected)/float64(det.FramesSeen), "zones/frame")
			b.ReportMetric(float64(det.Classified)/float64(det.FramesSeen), "crops/frame")
		})
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
