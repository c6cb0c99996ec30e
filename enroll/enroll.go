// Package enroll learns a table's own deck from one picture of it laid
// out face up on the felt, under the table's calibrated camera.
//
// # The layout
//
// The installer lays one deck face up in four rows: spades, hearts,
// diamonds and clubs, from the dealer's side towards the players; each row
// A, 2, …, 10, J, Q, K from left to right as the camera sees it. Cards lie
// upright (long edges towards the players), apart from each other.
//
// # How the cards are found
//
// Card paper is bright and nearly grey. Each blob of it in the picture
// (and, for court cards whose pictures cut their paper apart, each blob of
// whatever is not felt) is outlined, the outline is mapped to table
// millimetres with the camera's calibration, and a card is fitted to it:
// its direction from the rectangle of least area, each edge where most of
// the outline lies. A card is about 63×88 mm. The cards are grouped into
// rows by their distance from the dealer's side, ordered along each row
// by the picture's x, and placed in 13 evenly spaced places per row.
// Where more than four rows are found, the four that hold the most cards
// are the layout; a card's shape apart from them (the card back in the
// discard holder, a card set down elsewhere, or one laid against the
// holder and fitted with it) is left out, and named where a card is
// missing. Nothing here depends on the faces' art.
//
// # What is learned, and what is refused
//
// For each card, the two index corners (top left, and bottom right where
// the index is printed turned by 180°) are cut exactly as the monitor cuts
// them in play (classify.Cropper) and kept, with the box of the index's
// ink (classify.Deck). Enrolment refuses the picture, naming the
// card, when a card is missing, when the general model confidently reads
// another card in its place (out of place, or two cards swapped), when a
// number card's pips count another rank than its place's or are not the
// colour of its row's (vision/pips: two number cards swapped, in a
// design the model cannot read), or when
// an index corner shows no ink (a blank or covered card):
//
//	row 2 (hearts) position 5: 5H missing
//
//	cal, _ := calibration.Solve(frame, table)
//	deck, err := enroll.Learn(frame, cal, model, enroll.Options{Source: "enroll.png"})
//	b, _ := deck.Marshal() // the deck file: vision.deck in the configuration
package enroll

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/vision/classify"
)

// Reader reads corner crops: classify.Classifier and classify.Cascade are
// ones.
type Reader interface {
	Classify(crops []gocv.Mat) ([]classify.Result, error)
}

// ErrLayout is wrapped by errors about the layout as a whole: rows not
// found, cards not in line. Errors about one card are *Problem.
var ErrLayout = errors.New("enrolment layout")

// Suits are the rows' suits, from the dealer's side.
var Suits = [4]cards.Suit{cards.Spades, cards.Hearts, cards.Diamonds, cards.Clubs}

var rowNames = [4]string{"spades", "hearts", "diamonds", "clubs"}

// Problem is a card enrolment refuses.
type Problem struct {
	Row, Position int // 1-based: row 1 is spades, position 1 the ace
	Card          cards.Card
	What          string // "missing", or what is wrong with it
}

func (p *Problem) Error() string {
	return fmt.Sprintf("row %d (%s) position %d: %v %s", p.Row, rowNames[p.Row-1], p.Position, p.Card, p.What)
}

// SlotCard is the card that belongs at row r, position k (both 0-based).
func SlotCard(r, k int) cards.Card { return cards.New(cards.Rank(k+1), Suits[r]) }

// Options tune enrolment. The zero value takes the defaults.
type Options struct {
	// Source names the picture, for the deck file.
	Source string
	// OutOfPlace is the model's confidence at or above which its reading
	// of another card in a place refuses the card, unless that other card
	// is read in its own place too: 0.9 by default.
	OutOfPlace float64
	// Note, when set, is told of each card taken as laid out although
	// the model reads another card there (one read in its own place too).
	Note func(string)
	// Now is the deck's creation time; the zero value takes time.Now.
	Now time.Time
}

// Learn finds the deck laid out in frame (8-bit BGR, the calibrated
// camera's picture) and returns its templates, or an error that names
// every card that is missing, out of place or unreadable (errors.Join of
// *Problem), or says what is wrong with the layout (ErrLayout).
func Learn(frame gocv.Mat, cal *calibration.Calibration, model Reader, opts Options) (*classify.Deck, error) {
	if opts.OutOfPlace == 0 {
		opts.OutOfPlace = 0.9
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	found, odd, err := findCards(frame, cal)
	if err != nil {
		return nil, err
	}
	rows, apart := layoutRows(intoRows(found))
	if len(rows) != 4 {
		return nil, fmt.Errorf("%w: found %d cards in %d rows, want 52 in 4 (%s)%s", ErrLayout, len(found), len(rows), rowCounts(rows), oddNote(odd))
	}
	for i, r := range rows {
		if len(r) > 13 {
			return nil, fmt.Errorf("%w: row %d (%s) has %d cards, want 13%s", ErrLayout, i+1, rowNames[i], len(r), oddNote(odd))
		}
	}
	slots, err := slotted(rows)
	if err != nil {
		return nil, err
	}
	var problems []error
	for r := range slots {
		for k, c := range slots[r] {
			if c == nil {
				problems = append(problems, &Problem{Row: r + 1, Position: k + 1, Card: SlotCard(r, k), What: "missing"})
			}
		}
	}
	if len(problems) > 0 {
		// A card found apart is often where a missing card went.
		if len(apart) > 0 {
			problems = append(problems, errors.New(apartNote(apart)))
		}
		return nil, errors.Join(problems...)
	}
	if len(apart) > 0 && opts.Note != nil {
		opts.Note(apartNote(apart) + ": left out")
	}
	return learnTemplates(frame, cal, model, slots, opts)
}

// layoutRows returns the four rows of rows (in order) that hold the most
// cards, where more than four were found and every other row holds fewer
// than each of those: the cards of the other rows lie apart from the
// layout (the card back in the discard holder, a card set down
// elsewhere, the rim of the holder fitted as a card), and their centres
// are returned as apart. Otherwise rows is returned as it is.
func layoutRows(rows [][]laid) (kept [][]laid, apart []calibration.Point) {
	if len(rows) <= 4 {
		return rows, nil
	}
	bySize := make([]int, len(rows))
	for i := range bySize {
		bySize[i] = i
	}
	slices.SortStableFunc(bySize, func(a, b int) int { return len(rows[b]) - len(rows[a]) })
	if len(rows[bySize[4]]) >= len(rows[bySize[3]]) {
		return rows, nil
	}
	keep := bySize[:4]
	for i, r := range rows {
		if slices.Contains(keep, i) {
			kept = append(kept, r)
			continue
		}
		for _, c := range r {
			apart = append(apart, c.centre)
		}
	}
	return kept, apart
}

// apartNote names where the cards found apart from the layout lie.
func apartNote(apart []calibration.Point) string {
	return "a card's shape apart from the four rows at table mm" + places(apart)
}

// places lists up to four places on the table, in mm: " (x, y) (x, y) …".
func places(ps []calibration.Point) string {
	s := ""
	for i, p := range ps {
		if i == 4 {
			s += " …"
			break
		}
		s += fmt.Sprintf(" (%.0f, %.0f)", p.X, p.Y)
	}
	return s
}

func rowCounts(rows [][]laid) string {
	s := ""
	for i, r := range rows {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(len(r))
	}
	return s
}

// oddNote mentions blobs of paper that are not one card, which are often
// why cards are missing: two cards touching, a card over a white mark.
func oddNote(odd []calibration.Point) string {
	if len(odd) == 0 {
		return ""
	}
	return "; paper that is not one card at table mm" + places(odd) + ": keep the cards apart and off the marks"
}
