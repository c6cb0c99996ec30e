package clip

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"gocv.io/x/gocv"

	"bjmonitor/game"
	"bjmonitor/testvideos/camfx"
	"bjmonitor/testvideos/cardart"
	"bjmonitor/testvideos/scene"
	"bjmonitor/testvideos/script"
	"bjmonitor/video"
)

// Options describe one clip.
type Options struct {
	// Dir and Name: the clip's files are Dir/Name.mp4, .events.jsonl,
	// .truth.json, .table.json and .yaml.
	Dir, Name string
	// Script is the screenplay; its Room defaults to the scene layout's.
	Script script.Config
	Scene  scene.Config
	// Art supplies the card faces; the caller owns it.
	Art *cardart.Art
	// CRF is the H.264 quality (video.DefaultCRF when 0).
	CRF int
	// CCTV makes the frames look like a surveillance camera's, with
	// glossy cards (see CCTV): what it drew is kept in the truth.
	CCTV bool
	// Progress, when set, is called after each frame.
	Progress func(done, total int)
}

// Truth is the ground truth of a clip, written as Name.truth.json.
type Truth struct {
	Version  int               `json:"version"`
	Clip     string            `json:"clip"`
	Seed     uint64            `json:"seed"`
	FPS      float64           `json:"fps"`
	Frames   int               `json:"frames"`
	Width    int               `json:"width"`
	Height   int               `json:"height"`
	Deck     string            `json:"deck"`
	Codec    string            `json:"codec"`
	Rules    rules             `json:"rules"`
	Rounds   []script.Round    `json:"rounds"`
	Cards    []CardTruth       `json:"cards"`
	Injected []script.Injected `json:"injected"`
	// CCTV is what the camera and cards did, for a clip rendered with
	// Options.CCTV.
	CCTV *CCTV `json:"cctv,omitempty"`
}

type rules struct {
	Variant   game.Variant `json:"variant"`
	Decks     int          `json:"decks"`
	HitSoft17 bool         `json:"hit_soft_17"`
	HoleCard  bool         `json:"hole_card"`
}

// CardTruth is one card's life with where it lay in the image.
type CardTruth struct {
	script.Card
	Positions []Position `json:"positions"`
}

// Position is where a card lay from a frame on: its place in the round and
// its corners in image pixels (clockwise from the card's own top-left,
// lens distortion included) and its centre on the table in mm.
type Position struct {
	FromFrame int           `json:"from_frame"`
	Hand      int           `json:"hand"`
	Index     int           `json:"index"`
	Quad      [4][2]float64 `json:"quad"`
	Table     [2]float64    `json:"table"`
}

// Generate renders the clip and writes its files. It returns the truth it
// wrote.
func Generate(opts Options) (*Truth, error) {
	if opts.Art == nil {
		return nil, errors.New("clip: no card art")
	}
	if opts.Name == "" {
		return nil, errors.New("clip: no name")
	}
	sc, err := scene.New(opts.Scene, opts.Art, rand.New(rand.NewPCG(opts.Script.Seed, 7)))
	if err != nil {
		return nil, fmt.Errorf("clip: %w", err)
	}
	defer sc.Close()
	if opts.Script.Room == nil {
		opts.Script.Room = Room(sc.Layout())
	}
	s, err := script.Write(opts.Script)
	if err != nil {
		return nil, fmt.Errorf("clip: %w", err)
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, err
	}
	base := filepath.Join(opts.Dir, opts.Name)
	size := sc.Size()
	crf := opts.CRF
	if crf == 0 {
		crf = video.DefaultCRF
	}
	out, err := video.Create(base+".mp4", opts.Script.FPS, size.X, size.Y, crf)
	if err != nil {
		return nil, err
	}
	layout := sc.Layout()
	frame := gocv.NewMat()
	defer frame.Close()
	var cam *CCTV
	if opts.CCTV {
		cam = newCCTV(opts.Script.Seed)
	}
	placed := make([]scene.PlacedCard, 0, 64)
	var quads []camfx.Quad
	for f := 0; f < s.Frames; f++ {
		at := s.At(f)
		placed = placed[:0]
		for _, p := range at {
			placed = append(placed, Placed(layout, p, opts.Scene.Deck))
		}
		if err := sc.SetCards(placed); err != nil {
			out.Close()
			return nil, fmt.Errorf("clip: frame %d: %w", f, err)
		}
		if arm, ok := s.ArmAt(f); ok {
			sc.SetOccluders([]scene.Occluder{ArmOver(layout, arm, f)})
		} else {
			sc.SetOccluders(nil)
		}
		if err := sc.Render(&frame, f); err != nil {
			out.Close()
			return nil, fmt.Errorf("clip: frame %d: %w", f, err)
		}
		if cam != nil {
			quads = imageQuads(sc, placed, quads)
			if err := cam.apply(&frame, f, at, quads); err != nil {
				out.Close()
				return nil, fmt.Errorf("clip: frame %d: %w", f, err)
			}
		}
		if err := out.Write(frame); err != nil {
			out.Close()
			return nil, fmt.Errorf("clip: writing frame %d: %w", f, err)
		}
		if opts.Progress != nil {
			opts.Progress(f+1, s.Frames)
		}
	}
	if err := out.Close(); err != nil {
		return nil, fmt.Errorf("clip: finishing %s.mp4: %w", base, err)
	}

	r := opts.Script.Rules
	truth := &Truth{
		Version: 1, Clip: opts.Name, Seed: opts.Script.Seed, FPS: s.FPS, Frames: s.Frames,
		Width: size.X, Height: size.Y, Deck: opts.Scene.Deck, Codec: out.Codec,
		Rules:  rules{Variant: r.Variant, Decks: r.Decks, HitSoft17: r.HitSoft17, HoleCard: r.HoleCard},
		Rounds: s.Rounds, Injected: s.Injected, CCTV: cam,
	}
	for i := range s.Cards {
		c := &s.Cards[i]
		ct := CardTruth{Card: *c}
		at := func(f int) {
			for _, p := range s.At(f) {
				if p.Card.ID != c.ID {
					continue
				}
				pc := Placed(layout, p, opts.Scene.Deck)
				pos := Position{FromFrame: f, Hand: p.Hand, Index: p.Index}
				for k, q := range sc.ImageQuad(pc) {
					pos.Quad[k] = [2]float64{float64(q.X), float64(q.Y)}
				}
				pos.Table = [2]float64{pc.Pose.Center.X, pc.Pose.Center.Y}
				ct.Positions = append(ct.Positions, pos)
			}
		}
		at(c.Placed)
		for _, m := range c.Moves {
			at(m.Frame)
		}
		truth.Cards = append(truth.Cards, ct)
	}
	if err := writeJSON(base+".truth.json", truth); err != nil {
		return nil, err
	}
	if err := writeEvents(base+".events.jsonl", s); err != nil {
		return nil, err
	}
	if err := sc.WriteCalibration(base + ".table.json"); err != nil {
		return nil, err
	}
	if err := writeConfig(base+".yaml", opts.Name, r); err != nil {
		return nil, err
	}
	return truth, nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func writeEvents(path string, s *script.Script) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, e := range s.Events {
		if err := enc.Encode(e); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadTruth reads a clip's ground truth.
func ReadTruth(path string) (*Truth, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t Truth
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &t, nil
}
