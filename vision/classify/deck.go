package classify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"time"

	"bjmonitor/cards"
)

// DeckFormat is the only deck file format ParseDeck accepts.
const DeckFormat = "bjmonitor-deck/1"

// ErrDeck is wrapped by every error about a deck file's contents.
var ErrDeck = errors.New("deck file")

// Deck is what enrolment learned of one table's own deck: for each of the
// 52 cards, the crops of its two index corners as the table's camera saw
// them (monitor enroll writes it, Enrolled reads with it). Every crop has
// this package's geometry (CropCols×CropRows, CropWidthMM×CropHeightMM),
// so a template lines up with the crops the monitor cuts in play.
type Deck struct {
	Format string `json:"format"`
	// Created is when the deck was enrolled, RFC 3339.
	Created string `json:"created"`
	// Source is the picture or video it was learned from.
	Source string `json:"source"`
	// PxPerMM is the camera's resolution at the cards when enrolled.
	PxPerMM float64    `json:"px_per_mm"`
	Crop    DeckCrop   `json:"crop"`
	Cards   []DeckCard `json:"cards"`
}

// DeckCrop records the crop geometry the templates were cut with.
type DeckCrop struct {
	Cols     int     `json:"cols"`
	Rows     int     `json:"rows"`
	WidthMM  float64 `json:"width_mm"`
	HeightMM float64 `json:"height_mm"`
}

// DeckCard is one enrolled card: its two index corners, the top-left one
// first, then the bottom-right one (printed turned by 180°).
type DeckCard struct {
	Card    cards.Card  `json:"card"`
	Corners [2]Template `json:"corners"`
}

// Template is one index corner as enrolled: the crop, and where its
// index's ink lies in the crop.
type Template struct {
	// Ink is the bounding box of the index's ink, in crop pixels:
	// [x0, y0, x1, y1), x1 and y1 excluded.
	Ink [4]int `json:"ink"`
	// BGR is the crop, CropCols×CropRows pixels row by row, three bytes
	// (blue, green, red) a pixel, base64-encoded in the file.
	BGR []byte `json:"bgr"`
}

// InkRect returns Ink as a rectangle.
func (t Template) InkRect() image.Rectangle {
	return image.Rect(t.Ink[0], t.Ink[1], t.Ink[2], t.Ink[3])
}

// maxDeckBytes bounds a deck file: 104 crops of 8,640 bytes in base64 is
// about 1.2 MB.
const maxDeckBytes = 4 << 20

// LoadDeck reads and checks a deck file.
func LoadDeck(path string) (*Deck, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("classify: %w", err)
	}
	d, err := ParseDeck(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// ParseDeck decodes and checks a deck file's contents: the format, the crop
// geometry of this package, each of the 52 cards exactly once, every
// template CropCols×CropRows BGR pixels with its ink inside the crop.
// Unknown fields are errors, so that a typo is not silently ignored.
func ParseDeck(b []byte) (*Deck, error) {
	if len(b) > maxDeckBytes {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrDeck, len(b), maxDeckBytes)
	}
	var d Deck
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("%w: not valid JSON for a deck: %v", ErrDeck, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: data after the JSON object", ErrDeck)
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return &d, nil
}

// Validate checks d as ParseDeck does.
func (d *Deck) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrDeck, fmt.Sprintf(format, a...))
	}
	if d.Format != DeckFormat {
		return bad("format %q, want %q", d.Format, DeckFormat)
	}
	if _, err := time.Parse(time.RFC3339, d.Created); err != nil {
		return bad("created %q: want an RFC 3339 time", d.Created)
	}
	if len(d.Source) > 4096 {
		return bad("source of %d bytes, at most 4096", len(d.Source))
	}
	if math.IsNaN(d.PxPerMM) || d.PxPerMM < minPxPerMM || d.PxPerMM > maxPxPerMM {
		return bad("px_per_mm %v, want %g to %g", d.PxPerMM, float64(minPxPerMM), float64(maxPxPerMM))
	}
	want := DeckCrop{Cols: CropCols, Rows: CropRows, WidthMM: CropWidthMM, HeightMM: CropHeightMM}
	if d.Crop != want {
		return bad("crop %+v, want %+v (this package's geometry)", d.Crop, want)
	}
	if len(d.Cards) != 52 {
		return bad("%d cards, want 52", len(d.Cards))
	}
	seen := map[cards.Card]bool{}
	for i, c := range d.Cards {
		if !c.Card.Valid() {
			return bad("card %d is not a card", i)
		}
		if seen[c.Card] {
			return bad("%v enrolled twice", c.Card)
		}
		seen[c.Card] = true
		for k, t := range c.Corners {
			if err := t.validate(); err != nil {
				return bad("%v corner %d: %v", c.Card, k, err)
			}
		}
	}
	return nil
}

func (t Template) validate() error {
	if len(t.BGR) != 3*CropCols*CropRows {
		return fmt.Errorf("%d bytes of pixels, want %d", len(t.BGR), 3*CropCols*CropRows)
	}
	r := t.InkRect()
	if t.Ink[0] >= t.Ink[2] || t.Ink[1] >= t.Ink[3] || !r.In(image.Rect(0, 0, CropCols, CropRows)) {
		return fmt.Errorf("ink %v is not a box inside the %dx%d crop", t.Ink, CropCols, CropRows)
	}
	return nil
}

// Marshal writes the deck file, indented. Pixels go out base64.
func (d *Deck) Marshal() ([]byte, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return json.MarshalIndent(d, "", " ")
}
