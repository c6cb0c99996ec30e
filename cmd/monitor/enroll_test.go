package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/enroll"
	"bjmonitor/testvideos/cardart"
	"bjmonitor/testvideos/clip"
	"bjmonitor/testvideos/scene"
	"bjmonitor/vision/classify"
)

// enrolStill renders the default table with a gnome deck laid out for
// enrolment, changed by change when set, and points the models at the
// repository's.
func enrolStill(t *testing.T, change func([]scene.PlacedCard) []scene.PlacedCard) *clip.Enrolment {
	t.Helper()
	art, err := cardart.New(cardart.Options{})
	if err != nil {
		t.Skipf("no card art: %v", err)
	}
	defer art.Close()
	cfg := scene.DefaultConfig()
	cfg.Deck = "anglo_poker"
	e, err := clip.WriteEnrolmentStill(clip.EnrolmentOptions{Image: filepath.Join(t.TempDir(), "enrol.png"), Scene: cfg, Art: art, Seed: 3, Change: change})
	if err != nil {
		t.Fatal(err)
	}
	useBundledModels(t)
	return e
}

func TestEnroll(t *testing.T) {
	e := enrolStill(t, nil)
	out := filepath.Join(filepath.Dir(e.Image), "table.deck.json")
	stdout, stderr, err := run(t, "enroll", e.Image, "--config", e.Config, "--out", out)
	if err != nil {
		t.Fatalf("enroll: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "enrolled 52 cards") {
		t.Errorf("enroll printed %q, want it to report 52 cards", stdout)
	}
	d, err := classify.LoadDeck(out)
	if err != nil {
		t.Fatalf("the deck written does not load: %v", err)
	}
	if got, want := d.Source, e.Image; got != want {
		t.Errorf("deck source = %q, want %q", got, want)
	}
	// The configuration takes the deck file from its own folder.
	cfgPath := filepath.Join(filepath.Dir(e.Image), "with-deck.yaml")
	text := "table:\n  calibration: enrol.table.json\nvision:\n  deck: table.deck.json\n"
	if err := os.WriteFile(cfgPath, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := loadVideoConfig(cfgPath, nil, nil)
	if err != nil {
		t.Fatalf("a configuration with the deck: %v", err)
	}
	if c.Vision.Deck != out {
		t.Errorf("vision.deck = %q, want %q", c.Vision.Deck, out)
	}
	// monitor read with that configuration reads with the deck: the
	// layout's own cards match their enrolled corners, so the deck
	// decides every one (classify.DefaultMatchOptions' confidence).
	stdout, stderr, err = run(t, "read", "--json", e.Image, "--config", cfgPath)
	if err != nil {
		t.Fatalf("read with the deck: %v\n%s", err, stderr)
	}
	var r readResult
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("read --json printed %q: %v", stdout, err)
	}
	decided := 0
	for _, rc := range r.Cards {
		if rc.Confidence >= classify.DefaultMatchOptions().Confidence {
			decided++
		}
	}
	if len(r.Cards) != 52 || decided != 52 {
		t.Errorf("read with the deck: %d cards, %d decided by the deck; want 52 and 52", len(r.Cards), decided)
	}
}

func TestEnrollRefuses(t *testing.T) {
	e := enrolStill(t, func(p []scene.PlacedCard) []scene.PlacedCard {
		for i := range p {
			if p[i].Card == cards.MustParse("5H") {
				return append(p[:i], p[i+1:]...)
			}
		}
		return p
	})
	out := filepath.Join(filepath.Dir(e.Image), "table.deck.json")
	_, _, err := run(t, "enroll", e.Image, "--config", e.Config, "--out", out)
	var p *enroll.Problem
	if !errors.As(err, &p) || p.Card != cards.MustParse("5H") {
		t.Fatalf("enroll = %v, want the problem of 5H", err)
	}
	if want := "row 2 (hearts) position 5: 5H missing"; !strings.Contains(err.Error(), want) {
		t.Errorf("enroll = %q, want it to say %q", err, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused enrolment wrote %s (%v)", out, err)
	}
	if code := exitCode(err); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
}

// A deck file that is not there, or not a deck, stops the monitor before
// it starts, naming vision.deck.
func TestConfigDeckErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.deck.json")
	if err := os.WriteFile(bad, []byte(`{"format":"bjmonitor-deck/1"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	useBundledModels(t)
	for _, tc := range []struct{ name, deck, want string }{
		{"missing", "nowhere.deck.json", "no such file"},
		{"not a deck", "bad.deck.json", "deck file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := filepath.Join(dir, "c.yaml")
			text := "table:\n  calibration: table.json\nvision:\n  deck: " + tc.deck + "\n"
			if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := loadVideoConfig(cfg, nil, nil)
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != "vision.deck" || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("loadVideoConfig = %v, want a ConfigError naming vision.deck and %q", err, tc.want)
			}
		})
	}
}
