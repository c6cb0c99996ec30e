// Command genclip renders a synthetic overhead clip of a blackjack table
// from the GNOME card decks (or, with --deck kde:<name>, from a KDE
// acceptance deck), with its controller log, table file, monitor
// configuration and ground truth (see package clip).
//
//	go run ./testvideos/cmd/genclip --out testvideos --name freebet-1080p --rounds 3 --seed 1
//
// With --enroll-still OUT.png it renders instead one still of the same
// table with a whole deck laid out for monitor enroll.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"bjmonitor/cards"
	"bjmonitor/game"
	"bjmonitor/testvideos/cardart"
	"bjmonitor/testvideos/clip"
	"bjmonitor/testvideos/scene"
	"bjmonitor/testvideos/script"
	"bjmonitor/video"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "genclip:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("genclip", flag.ContinueOnError)
	sc := script.DefaultConfig()
	cam := scene.DefaultCameraConfig()
	view := scene.DefaultConfig()
	out := fs.String("out", "testvideos/out", "folder for the clip's files")
	name := fs.String("name", "clip", "base name of the clip's files")
	fs.IntVar(&sc.Rounds, "rounds", sc.Rounds, "rounds to deal")
	fs.Uint64Var(&sc.Seed, "seed", sc.Seed, "seed: the same seed gives the same clip")
	fs.Float64Var(&sc.FPS, "fps", sc.FPS, "frames per second")
	fs.Float64Var(&sc.ErrorRate, "error-rate", 0, "share of controller settlement entries made wrong")
	fs.Float64Var(&sc.SideBetRate, "side-bet-rate", sc.SideBetRate, "chance a player places each side bet")
	players := fs.String("players", "", "seats played every round, e.g. 1,3,5 (default: 2 to 5 seats at random each round)")
	stack := fs.String("stack", "", "cards dealt first, in dealing order, e.g. \"7H 6S 7D TC\", to script a scene")
	variant := fs.String("variant", string(game.FreeBet), "freebet or classic")
	fs.IntVar(&sc.Rules.Decks, "decks", 6, "decks in the shoe")
	fs.BoolVar(&sc.Rules.HitSoft17, "h17", true, "the dealer hits soft 17")
	fs.BoolVar(&sc.Rules.HoleCard, "hole-card", true, "the dealer takes a hole card")
	res := fs.String("res", "1080p", "1080p or 4k")
	fs.Float64Var(&cam.TiltDeg, "tilt", cam.TiltDeg, "camera tilt off vertical, degrees (0-35)")
	fs.Float64Var(&cam.TiltAzimuthDeg, "tilt-azimuth", cam.TiltAzimuthDeg, "direction of the tilt, degrees")
	fs.Float64Var(&cam.K1, "k1", cam.K1, "radial lens distortion")
	fs.Float64Var(&cam.HeightMM, "camera-height", cam.HeightMM, "camera height above the felt, mm")
	fs.Float64Var(&cam.YawDeg, "yaw", cam.YawDeg, "camera turn about its axis, degrees")
	fs.IntVar(&view.Layout.Seats, "seats", view.Layout.Seats, "seats at the table (1-9)")
	fs.StringVar(&view.Deck, "deck", view.Deck, "card design: a gnome-cards-data deck, proc:<seed> for a procedural design in a font held out of training, or kde:<name> for a KDE acceptance deck (acceptance tests only; see testvideos/cardart/README.md)")
	fs.Float64Var(&view.NoiseSigma, "noise", view.NoiseSigma, "sensor noise, grey levels")
	fs.Float64Var(&view.LightUnevenness, "uneven-light", view.LightUnevenness, "unevenness of the light, 0-1")
	felt := fs.String("felt", "green", "green or blue")
	crf := fs.Int("crf", video.DefaultCRF, "H.264 quality: lower is better and larger")
	cctv := fs.Bool("cctv", false, "make the frames look like a surveillance camera's, with glossy cards: a colour cast, sharpening halos, JPEG at quality 60-90 before the H.264, bends and glare bands on cards lying on top, motion blur on moving cards (drawn from the seed; see the clip package's CCTV)")
	still := fs.String("enroll-still", "", "instead of a clip, render a still of the table with one deck laid out for monitor enroll (four rows: spades, hearts, diamonds, clubs from the dealer's side, A to K left to right) to this .png or .jpg, with its table file and configuration beside it")
	listAcc := fs.Bool("list-acceptance-decks", false, "print the KDE acceptance decks installed, one a line, and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *listAcc {
		decks, err := cardart.AcceptanceDecks("")
		if err != nil {
			return err
		}
		for _, d := range decks {
			fmt.Println(d.Name)
		}
		return nil
	}
	sc.Rules.Variant = game.Variant(*variant)
	switch *res {
	case "1080p":
	case "4k", "4K":
		cam.Width, cam.Height = 3840, 2160
	default:
		return fmt.Errorf("--res %q: want 1080p or 4k", *res)
	}
	if *felt == "blue" {
		view.Felt = scene.BlueFelt
	}
	view.Camera = cam
	sc.Seats = view.Layout.Seats
	if *players != "" {
		for _, p := range strings.Split(*players, ",") {
			var n int
			if _, err := fmt.Sscan(p, &n); err != nil {
				return fmt.Errorf("--players %q: %v", *players, err)
			}
			sc.Players = append(sc.Players, n)
		}
	}
	if *stack != "" {
		cs, err := cards.ParseList(*stack)
		if err != nil {
			return fmt.Errorf("--stack: %w", err)
		}
		sc.Stack = cs
	}
	newArt := cardart.New
	if strings.HasPrefix(view.Deck, cardart.AcceptancePrefix) {
		// The KDE decks are kept for acceptance tests, through their own
		// constructor, which training never calls.
		newArt = cardart.NewAcceptance
	}
	art, err := newArt(cardart.Options{})
	if err != nil {
		return err
	}
	defer art.Close()
	if *still != "" {
		e, err := clip.WriteEnrolmentStill(clip.EnrolmentOptions{Image: *still, Scene: view, Art: art, Seed: sc.Seed})
		if err != nil {
			return err
		}
		fmt.Printf("%s: deck %s laid out for enrolment; table file %s, configuration %s\n", e.Image, view.Deck, e.Table, e.Config)
		return nil
	}
	start := time.Now()
	last := time.Time{}
	truth, err := clip.Generate(clip.Options{
		Dir: *out, Name: *name, Script: sc, Scene: view, Art: art, CRF: *crf, CCTV: *cctv,
		Progress: func(done, total int) {
			if time.Since(last) > 2*time.Second || done == total {
				last = time.Now()
				fmt.Fprintf(os.Stderr, "\r%s: frame %d/%d, %.1f frames/s ", *name, done, total, float64(done)/time.Since(start).Seconds())
			}
		},
	})
	fmt.Fprintln(os.Stderr)
	if err != nil {
		return err
	}
	if truth.Frames == 0 {
		return errors.New("no frames rendered")
	}
	secs := float64(truth.Frames) / truth.FPS
	took := time.Since(start).Seconds()
	fmt.Printf("%s/%s.mp4: %d rounds, %d cards, %d injected errors, %.1f s of video rendered in %.1f s (%.2f× real time, %s)\n",
		*out, *name, len(truth.Rounds), len(truth.Cards), len(truth.Injected), secs, took, secs/took, truth.Codec)
	return nil
}
