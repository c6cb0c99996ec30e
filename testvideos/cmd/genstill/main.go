// Command genstill renders still pictures of dealt blackjack tables, as
// phones and CCTV cameras take them (package still): no marks, a random
// scale and tilt, JPEG, sharpening, blur, glare, shadows, bent cards and
// colour casts. Each picture NAME-SEED.png comes with NAME-SEED.truth.json,
// the cards on the felt and their corners in the picture.
//
//	go run ./testvideos/cmd/genstill --out /tmp/stills --deck dondorf --seed 1 --count 5
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gocv.io/x/gocv"

	"bjmonitor/testvideos/cardart"
	"bjmonitor/testvideos/still"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "genstill:", err)
		os.Exit(1)
	}
}

// truth is the file beside each picture.
type truth struct {
	Deck        string       `json:"deck"`
	Seed        uint64       `json:"seed"`
	PxPerMM     float64      `json:"px_per_mm"`
	TiltDeg     float64      `json:"tilt_deg"`
	JPEGQuality int          `json:"jpeg_quality,omitempty"`
	Effects     []string     `json:"effects,omitempty"`
	Cards       []still.Card `json:"cards"`
}

func run(args []string) error {
	fs := flag.NewFlagSet("genstill", flag.ContinueOnError)
	out := fs.String("out", "testvideos/out/stills", "folder for the pictures")
	deck := fs.String("deck", "dondorf", "card design: a gnome-cards-data deck, or kde:<name> (acceptance only)")
	seed := fs.Uint64("seed", 1, "seed of the first picture; each next one takes the next seed")
	count := fs.Int("count", 1, "pictures to render")
	clean := fs.Bool("clean", false, "leave out the camera's faults")
	tilt := fs.Float64("max-tilt", 30, "largest camera tilt, degrees")
	if err := fs.Parse(args); err != nil {
		return err
	}
	newArt := cardart.New
	if strings.HasPrefix(*deck, cardart.AcceptancePrefix) {
		// The KDE decks are kept for acceptance tests, through their own
		// constructor, which training never calls.
		newArt = cardart.NewAcceptance
	}
	art, err := newArt(cardart.Options{})
	if err != nil {
		return err
	}
	defer art.Close()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	for i := range *count {
		s := *seed + uint64(i)
		st, err := still.Render(still.Options{Art: art, Deck: *deck, Seed: s, Clean: *clean, MaxTiltDeg: *tilt})
		if err != nil {
			return err
		}
		base := filepath.Join(*out, fmt.Sprintf("%s-%d", strings.TrimPrefix(*deck, cardart.AcceptancePrefix), s))
		ok := gocv.IMWrite(base+".png", st.Image)
		st.Image.Close()
		if !ok {
			return fmt.Errorf("cannot write %s.png", base)
		}
		b, err := json.MarshalIndent(truth{Deck: *deck, Seed: s, PxPerMM: st.PxPerMM, TiltDeg: st.TiltDeg, JPEGQuality: st.JPEGQuality, Effects: st.Effects, Cards: st.Cards}, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(base+".truth.json", b, 0o644); err != nil {
			return err
		}
		fmt.Printf("%s.png: %d cards, %.2f px/mm, tilt %.0f°, JPEG %d\n", base, len(st.Cards), st.PxPerMM, st.TiltDeg, st.JPEGQuality)
	}
	return nil
}
