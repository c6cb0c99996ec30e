package main

import (
	"testing"
	"time"

	"gocv.io/x/gocv"
)

// BenchmarkReplay replays the bundled 1080p sample and reports how many
// times faster than real time it runs, and how its time compares with
// decoding the same file alone (the bar: 10× real time, within 2× of
// decoding). Decoding alone is measured two ways: every frame decoded and
// converted to BGR, as a player does ("decode"), and every frame decoded
// but none converted ("grab"), the floor under any replay, which must
// decode every frame of an H.264 stream even where it reads only some
// (vision.analysis_fps).
func BenchmarkReplay(b *testing.B) {
	const name = "freebet-1080p"
	decode := func(convert bool) (time.Duration, int) {
		start := time.Now()
		vc, err := gocv.VideoCaptureFile(sample(name, "mp4"))
		if err != nil {
			b.Fatal(err)
		}
		defer vc.Close()
		m := gocv.NewMat()
		defer m.Close()
		n := 0
		for {
			if convert {
				if !vc.Read(&m) || m.Empty() {
					break
				}
			} else if vc.Grab(1); int(vc.Get(gocv.VideoCapturePosFrames)) <= n {
				break
			}
			n++
		}
		return time.Since(start), n
	}
	var decodeTime, grabTime, replayTime time.Duration
	frames := 0
	for i := 0; i < b.N; i++ {
		d, n := decode(true)
		decodeTime += d
		frames = n
		g, _ := decode(false)
		grabTime += g
		start := time.Now()
		if _, _, stderr, err := replaySample(b, name, sample(name, "events.jsonl"), sample(name, "mp4")); err != nil {
			b.Fatalf("replay: %v\n%s", err, stderr)
		}
		replayTime += time.Since(start)
	}
	video := float64(frames) / 25 * float64(b.N)
	b.ReportMetric(video/replayTime.Seconds(), "x_realtime")
	b.ReportMetric(video/decodeTime.Seconds(), "decode_x_realtime")
	b.ReportMetric(replayTime.Seconds()/decodeTime.Seconds(), "replay/decode")
	b.ReportMetric(replayTime.Seconds()/grabTime.Seconds(), "replay/grab")
}
