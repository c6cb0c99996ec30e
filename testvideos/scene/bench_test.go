package scene

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/video"
)

// BenchmarkRender measures typical dealing frames: the dealer's arm moves
// every frame, and a card lands every 25 frames (one a second at 25 fps).
// It reports frames per second; real time is 25–30.
func BenchmarkRender(b *testing.B) {
	for _, size := range []struct {
		name string
		w, h int
	}{{"1080p", 1920, 1080}, {"4K", 3840, 2160}} {
		b.Run(size.name, func(b *testing.B) {
			if size.w > 1920 && testing.Short() {
				b.Skip("4K skipped in -short")
			}
			benchFrames(b, size.w, size.h, "")
		})
	}
}

// BenchmarkRenderEncode adds H.264 encoding of each 1080p frame, the cost
// of writing a clip.
func BenchmarkRenderEncode(b *testing.B) {
	benchFrames(b, 1920, 1080, filepath.Join(b.TempDir(), "bench.mp4"))
}

func benchFrames(b *testing.B, w, h int, videoPath string) {
	cfg := DefaultConfig()
	cfg.Camera.Width, cfg.Camera.Height = w, h
	s := newScene(b, cfg, 1)
	placed, occ := fullTable(s.Layout(), rand.New(rand.NewPCG(1, 2)))
	var v *video.Writer
	if videoPath != "" {
		var err error
		if v, err = video.Create(videoPath, 25, w, h, video.DefaultCRF); err != nil {
			b.Fatal(err)
		}
		defer v.Close()
	}
	frame := gocv.NewMat()
	defer frame.Close()
	arm := occ[0]
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%25 == 0 {
			if err := s.SetCards(placed[:1+(i/25)%len(placed)]); err != nil {
				b.Fatal(err)
			}
		}
		a := arm
		a.Hand = a.Hand.Add(Point{float64(i%50) * 3, float64(i%50) * -1})
		s.SetOccluders([]Occluder{a})
		if err := s.Render(&frame, i); err != nil {
			b.Fatal(err)
		}
		if v != nil {
			if err := v.Write(frame); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}
