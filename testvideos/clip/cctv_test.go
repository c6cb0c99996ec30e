package clip

import (
	"bytes"
	"image"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/testvideos/camfx"
	"bjmonitor/testvideos/script"
)

// TestCCTVClip renders the test clip plainly and through the CCTV camera:
// the same rounds and cards in the same places, the camera's draws kept
// in the truth, the same bytes for the same seed, and pictures that
// differ from the plain ones.
func TestCCTVClip(t *testing.T) {
	plain, a, b := t.TempDir(), t.TempDir(), t.TempDir()
	want := generate(t, plain)
	got := generateWith(t, a, true)
	generateWith(t, b, true)
	if want.CCTV != nil || got.CCTV == nil {
		t.Fatalf("truth's CCTV: plain %v, cctv %v; want nil and the camera's draws", want.CCTV, got.CCTV)
	}
	if c := got.CCTV; c.JPEG < 60 || c.JPEG > 90 || c.BlurPx < 4 || c.BlurPx > 10 {
		t.Errorf("camera drawn out of range: %+v", c)
	}
	read, err := ReadTruth(filepath.Join(a, "t.truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	if read.CCTV == nil || read.CCTV.JPEG != got.CCTV.JPEG || read.CCTV.Cast != got.CCTV.Cast {
		t.Errorf("the truth's CCTV reads back as %+v, written %+v", read.CCTV, got.CCTV)
	}
	if !reflect.DeepEqual(got.Cards, want.Cards) || !reflect.DeepEqual(got.Rounds, want.Rounds) {
		t.Error("the CCTV camera changed the rounds or where the cards lie")
	}
	for _, ext := range []string{".mp4", ".truth.json"} {
		x, _ := os.ReadFile(filepath.Join(a, "t"+ext))
		y, _ := os.ReadFile(filepath.Join(b, "t"+ext))
		if !bytes.Equal(x, y) {
			t.Errorf("t%s differs between two CCTV runs with the same seed", ext)
		}
	}
	// A frame with cards on the felt: the plain and CCTV pictures differ
	// there by more than the encoder's noise.
	f := got.Cards[0].Shown + 5
	p, c := frameAt(t, filepath.Join(plain, "t.mp4"), f), frameAt(t, filepath.Join(a, "t.mp4"), f)
	defer p.Close()
	defer c.Close()
	diff := gocv.NewMat()
	defer diff.Close()
	gocv.AbsDiff(p, c, &diff)
	if m := diff.Mean(); m.Val1+m.Val2+m.Val3 < 3 {
		t.Errorf("frame %d: the CCTV picture differs from the plain one by %.2f grey levels a channel, want more", f, (m.Val1+m.Val2+m.Val3)/3)
	}
}

// frameAt returns frame f of the video at path; the caller closes it.
func frameAt(t *testing.T, path string, f int) gocv.Mat {
	t.Helper()
	vc, err := gocv.VideoCaptureFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer vc.Close()
	m := gocv.NewMat()
	for i := 0; i <= f; i++ {
		if !vc.Read(&m) || m.Empty() {
			m.Close()
			t.Fatalf("%s: no frame %d", path, f)
		}
	}
	return m
}

func TestMoving(t *testing.T) {
	c := &script.Card{Placed: 100, Shown: 110, Turned: -1, Removed: 300}
	turned := &script.Card{Placed: 100, Shown: 110, Turned: 200, Removed: 300}
	split := &script.Card{Placed: 100, Shown: 110, Turned: -1, Removed: 300, Moves: []script.Move{{Frame: 150, Hand: 1}}}
	for _, tt := range []struct {
		name string
		c    *script.Card
		f    int
		want float64
	}{
		{"landing under the hand", c, 100, 1},
		{"still sliding", c, 109, 1},
		{"first seen whole", c, 110, 0.5},
		{"at rest", c, 111, 0},
		{"turned up", turned, 200, 1},
		{"the frame after the turn", turned, 201, 0.5},
		{"at rest after the turn", turned, 202, 0},
		{"moved by a split", split, 150, 1},
		{"the frame after the split", split, 151, 0.5},
		{"at rest in its new hand", split, 152, 0},
	} {
		if got := moving(tt.c, tt.f); got != tt.want {
			t.Errorf("%s: moving at frame %d = %v, want %v", tt.name, tt.f, got, tt.want)
		}
	}
}

func TestTop(t *testing.T) {
	size := image.Pt(640, 360)
	card := func(x, y float64) camfx.Quad {
		return camfx.Quad{{x, y}, {x + 30, y}, {x + 30, y + 42}, {x, y + 42}}
	}
	quads := []camfx.Quad{card(100, 100), card(110, 108), card(300, 100)}
	for i, want := range []bool{false, true, true} {
		if got := top(i, quads, size); got != want {
			t.Errorf("card %d: top = %v, want %v", i, got, want)
		}
	}
}

// TestInRegion: an effect run on a card's part of the frame leaves the
// rest of the frame as it was.
func TestInRegion(t *testing.T) {
	frame := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(90, 120, 60, 0), 200, 300, gocv.MatTypeCV8UC3)
	defer frame.Close()
	q := camfx.Quad{{100, 50}, {160, 50}, {160, 134}, {100, 134}}
	var local camfx.Quad
	if err := inRegion(&frame, q, 4, func(m *gocv.Mat, lq camfx.Quad) error {
		local = lq
		m.SetTo(gocv.NewScalar(255, 255, 255, 0))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if local[0] != [2]float64{4, 4} {
		t.Errorf("the quad in the region starts at %v, want [4 4]", local[0])
	}
	for _, tt := range []struct {
		x, y  int
		white bool
	}{{130, 90, true}, {96, 46, true}, {95, 90, false}, {130, 140, false}, {10, 10, false}} {
		if white := frame.GetVecbAt(tt.y, tt.x)[0] == 255; white != tt.white {
			t.Errorf("pixel (%d, %d) changed %v, want %v", tt.x, tt.y, white, tt.white)
		}
	}
}
