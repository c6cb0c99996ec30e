package clip

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/evaluator"
	"bjmonitor/testvideos/cardart"
	"bjmonitor/testvideos/scene"
	"bjmonitor/testvideos/script"
)

func generate(tb testing.TB, dir string) *Truth {
	tb.Helper()
	return generateWith(tb, dir, false)
}

// generateWith renders the test clip, with the CCTV camera where cctv.
func generateWith(tb testing.TB, dir string, cctv bool) *Truth {
	tb.Helper()
	art, err := cardart.New(cardart.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer art.Close()
	sc := script.DefaultConfig()
	sc.Rounds, sc.Seed, sc.ErrorRate = 2, 11, 0.3
	view := scene.DefaultConfig()
	// A small picture keeps the test quick; the card area is still seen
	// at about 0.5 px/mm, enough for the geometry checked here.
	view.Camera.Width, view.Camera.Height = 640, 360
	truth, err := Generate(Options{Dir: dir, Name: "t", Script: sc, Scene: view, Art: art, CCTV: cctv})
	if err != nil {
		tb.Fatal(err)
	}
	return truth
}

func TestGenerate(t *testing.T) {
	dir := t.TempDir()
	truth := generate(t, dir)
	for _, ext := range []string{".mp4", ".events.jsonl", ".truth.json", ".table.json", ".yaml"} {
		if st, err := os.Stat(filepath.Join(dir, "t"+ext)); err != nil || st.Size() == 0 {
			t.Errorf("t%s not written: %v", ext, err)
		}
	}
	read, err := ReadTruth(filepath.Join(dir, "t.truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(read.Cards, truth.Cards) {
		t.Error("the truth file does not read back as written")
	}

	// Every card dealt in the rounds has a life in the truth, with its
	// corners inside the picture.
	dealt := 0
	for _, r := range truth.Rounds {
		dealt += len(r.Round.Dealer.Cards)
		for _, s := range r.Round.Seats {
			for _, h := range s.Hands {
				dealt += len(h.Cards)
			}
		}
	}
	if dealt != len(truth.Cards) {
		t.Errorf("%d cards dealt in the rounds, %d in the truth", dealt, len(truth.Cards))
	}
	for _, c := range truth.Cards {
		if len(c.Positions) != 1+len(c.Moves) {
			t.Errorf("card %d: %d positions for %d moves", c.ID, len(c.Positions), len(c.Moves))
		}
		for _, p := range c.Positions {
			for _, q := range p.Quad {
				if q[0] < 0 || q[1] < 0 || q[0] >= float64(truth.Width) || q[1] >= float64(truth.Height) {
					t.Errorf("card %d corner %v outside the picture", c.ID, q)
				}
			}
		}
	}

	// The outcomes recorded are the evaluator's.
	for _, r := range truth.Rounds {
		meter := r.MeterStart
		for _, w := range r.Wagers {
			if w.Bet == evaluator.Blazing7s {
				meter += 0.15
			}
		}
		for i, w := range r.Wagers {
			if w.Bet == evaluator.Blazing7s {
				continue // meter-dependent; checked in package script
			}
			o, err := evaluator.Evaluate(r.Round, script.DefaultConfig().Rules, w, evaluator.DefaultPayTables(), meter)
			if err != nil || !reflect.DeepEqual(o, r.Outcomes[i]) {
				t.Errorf("round %s wager %+v: evaluator %+v (%v), truth %+v", r.ID, w, o, err, r.Outcomes[i])
			}
		}
	}

	// The video has every frame.
	vc, err := gocv.VideoCaptureFile(filepath.Join(dir, "t.mp4"))
	if err != nil {
		t.Fatal(err)
	}
	defer vc.Close()
	frame := gocv.NewMat()
	defer frame.Close()
	n := 0
	for vc.Read(&frame) && !frame.Empty() {
		n++
	}
	if n != truth.Frames {
		t.Errorf("the video has %d frames, the truth says %d", n, truth.Frames)
	}
}

func TestGenerateDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	generate(t, a)
	generate(t, b)
	for _, ext := range []string{".mp4", ".events.jsonl", ".truth.json", ".table.json"} {
		x, _ := os.ReadFile(filepath.Join(a, "t"+ext))
		y, _ := os.ReadFile(filepath.Join(b, "t"+ext))
		if !bytes.Equal(x, y) {
			t.Errorf("t%s differs between two runs with the same seed", ext)
		}
	}
}
