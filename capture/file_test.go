package capture

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/video"
)

// clip writes n frames of 64×48 at 25 frames a second, frame i grey
// level 4i, and returns its path.
func clip(tb testing.TB, n int) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "clip.mp4")
	w, err := video.Create(path, 25, 64, 48, video.DefaultCRF)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		m := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(float64(4*i), float64(4*i), float64(4*i), 0), 48, 64, gocv.MatTypeCV8UC3)
		err := w.Write(m)
		m.Close()
		if err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// TestFileReadsEveryFrame reads every frame of a clip in order, converting only those
// asked for into dst, and ends with io.EOF.
func TestFileReadsEveryFrame(t *testing.T) {
	f, err := OpenFile(clip(t, 20))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.FPS() != 25 || f.Announced() != 20 {
		t.Errorf("FPS %v, announced %d frames; want 25 and 20", f.FPS(), f.Announced())
	}
	f.Start(context.Background(), func(i int) bool { return i%3 == 0 })
	dst := gocv.NewMat()
	defer dst.Close()
	for i := 0; ; i++ {
		info, err := f.Next(context.Background(), &dst)
		if errors.Is(err, io.EOF) {
			if i != 20 || f.Decoded() != 20 {
				t.Errorf("ended after %d frames, %d decoded; want 20", i, f.Decoded())
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if info.Seq != uint64(i+1) || info.Grabbed != (i%3 != 0) {
			t.Errorf("frame %d: Seq %d, Grabbed %v", i, info.Seq, info.Grabbed)
		}
		if !info.Grabbed {
			// H.264 and the colour range move the grey level a little,
			// less than half the 12 levels between frames converted.
			if got := dst.Mean().Val1; dst.Cols() != 64 || got < float64(4*i)-6 || got > float64(4*i)+6 {
				t.Errorf("frame %d: %dx%d, grey %.1f; want 64x48, about %d", i, dst.Cols(), dst.Rows(), got, 4*i)
			}
		}
	}
}

// TestFileClosedEarly: a reader that stops in the middle closes the file
// while the decoder runs ahead, and nothing leaks or aborts; a cancelled
// ctx ends Next.
func TestFileClosedEarly(t *testing.T) {
	path := clip(t, 40)
	for range 3 {
		f, err := OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		f.Start(ctx, func(int) bool { return true })
		dst := gocv.NewMat()
		if _, err := f.Next(ctx, &dst); err != nil {
			t.Fatal(err)
		}
		cancel()
		if _, err := f.Next(ctx, &dst); err == nil || errors.Is(err, io.EOF) {
			// The decoder may have queued frames; those still come.
			for err == nil {
				_, err = f.Next(ctx, &dst)
			}
		}
		if err := f.Close(); err != nil {
			t.Error(err)
		}
		dst.Close()
	}
}

func TestOpenFileMissing(t *testing.T) {
	if f, err := OpenFile(filepath.Join(t.TempDir(), "none.mp4")); err == nil {
		f.Close()
		t.Error("OpenFile of a missing file succeeded")
	}
}
