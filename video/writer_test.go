package video

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gocv.io/x/gocv"
)

func TestWriterRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name   string
		create func(string, float64, int, int, int) (*Writer, error)
		nice   int // the encoder's CPU priority; -1: the test's own
	}{
		{"Create", Create, -1},
		{"CreateBackground", CreateBackground, 19},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "v.mp4")
			w, err := tc.create(path, 25, 320, 240, DefaultCRF)
			if err != nil {
				t.Fatal(err)
			}
			if w.cmd != nil {
				want := tc.nice
				if want < 0 {
					want = niceOf(t, os.Getpid())
				}
				if nice := niceOf(t, w.cmd.Process.Pid); nice != want {
					t.Errorf("the encoder runs at nice %d, want %d", nice, want)
				}
			}
			frame := gocv.NewMatWithSize(240, 320, gocv.MatTypeCV8UC3)
			defer frame.Close()
			for i := 0; i < 30; i++ {
				frame.SetTo(gocv.NewScalar(float64(i*8), 100, 200, 0))
				if err := w.Write(frame); err != nil {
					t.Fatal(err)
				}
			}
			wrong := gocv.NewMatWithSize(100, 100, gocv.MatTypeCV8UC3)
			defer wrong.Close()
			if err := w.Write(wrong); err == nil {
				t.Error("a frame of the wrong size was written")
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if st, err := os.Stat(path); err != nil || st.Size() == 0 {
				t.Fatalf("no video written: %v", err)
			}
			vc, err := gocv.VideoCaptureFile(path)
			if err != nil {
				t.Fatal(err)
			}
			defer vc.Close()
			n := 0
			for vc.Read(&frame) && !frame.Empty() {
				n++
			}
			if n != 30 {
				t.Errorf("read back %d frames, wrote 30", n)
			}
			if w.Codec != "avc1" {
				t.Errorf("codec %s, want H.264 (avc1) through ffmpeg", w.Codec)
			}
		})
	}
}

// niceOf reads a process's nice value from /proc/PID/stat (field 19).
func niceOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	n, err := strconv.Atoi(f[16])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCreateRejects(t *testing.T) {
	for _, c := range []struct{ w, h, crf int }{{15, 16, 23}, {321, 240, 23}, {320, 240, 60}} {
		if _, err := Create(filepath.Join(t.TempDir(), "x.mp4"), 25, c.w, c.h, c.crf); err == nil {
			t.Errorf("Create %dx%d crf %d succeeded", c.w, c.h, c.crf)
		}
	}
}
