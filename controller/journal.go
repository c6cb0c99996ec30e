package controller

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Journal is a durable log of the controller events a monitor has taken
// and not yet judged: each is appended and fsync'd before the broker is
// acknowledged, so that a monitor killed mid-round finds, when it starts
// again, the game_start and wagers it had taken for the round in play. The
// caller forgets a round's events once the round is judged and published
// (Forget), and clears the journal whenever it holds nothing unjudged
// (Clear).
//
// One line per event: the CRC-32 (Castagnoli) of the event's JSON in 8
// hex digits, a space, the JSON, a newline. A line torn by a crash, or
// corrupt, is skipped when the journal is read (ParseJournal), never
// taken as an event. It holds at most JournalMax events: past that the
// oldest half is dropped (they belong to rounds long over, or to rounds
// whose game_end never came).
//
// A Journal is safe for concurrent use. Close releases its file.
type Journal struct {
	mu     sync.Mutex
	path   string
	f      *os.File
	lines  [][]byte // the file's lines, newline included
	events []Event  // lines' events
	// stale: the file may not hold lines as they are (a write failed);
	// it is written afresh before the next append.
	stale   bool
	dropped int
	max     int // JournalMax; less in tests
}

// JournalMax bounds the events a Journal holds: 16 rounds of 50 events,
// the most a monitor keeps waiting for their game_end, ten times over.
const JournalMax = 8192

// OpenJournal opens the journal at path, creating it if need be, and
// returns the events it holds, in the order they were appended, with the
// number of lines skipped as torn or corrupt. Skipped lines are dropped
// from the file. It fails, with a nil Journal, only when the file cannot
// be read; when it cannot be written afresh (a full disk), the error says
// so, and the Journal returned holds the events in memory and tries again
// at the next Append or Clear.
func OpenJournal(path string) (*Journal, []Event, int, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, 0, fmt.Errorf("controller journal: %w", err)
	}
	events, skipped := ParseJournal(data)
	j := &Journal{path: path, max: JournalMax}
	for _, e := range events {
		line, err := journalLine(e)
		if err != nil {
			return nil, nil, 0, err
		}
		j.lines = append(j.lines, line)
	}
	j.events = slices.Clone(events)
	return j, events, skipped, j.rewrite()
}

// ParseJournal reads a journal's lines: every well-formed line whose
// checksum matches and whose event is valid (Event.Validate), in order,
// and the number of lines skipped (a last line without its newline is a
// torn append, and skipped too).
func ParseJournal(data []byte) (events []Event, skipped int) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return events, skipped + 1
		}
		line := data[:i]
		data = data[i+1:]
		if e, ok := parseJournalLine(line); ok {
			events = append(events, e)
		} else {
			skipped++
		}
	}
	return events, skipped
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func parseJournalLine(line []byte) (Event, bool) {
	const sum = 8 // hex digits
	if len(line) < sum+2 || line[sum] != ' ' {
		return Event{}, false
	}
	var want [4]byte
	if _, err := hex.Decode(want[:], line[:sum]); err != nil {
		return Event{}, false
	}
	body := line[sum+1:]
	c := crc32.Checksum(body, castagnoli)
	if want != [4]byte{byte(c >> 24), byte(c >> 16), byte(c >> 8), byte(c)} {
		return Event{}, false
	}
	e, err := Parse(body)
	return e, err == nil
}

// journalLine is e's line in the journal.
func journalLine(e Event) ([]byte, error) {
	body, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("controller journal: %w", err)
	}
	return fmt.Appendf(nil, "%08x %s\n", crc32.Checksum(body, castagnoli), body), nil
}

// Append adds e to the journal and syncs it to disk. When it fails (a
// full disk), e is still held in memory, and the whole journal is written
// again at the next Append or Clear.
func (j *Journal) Append(e Event) error {
	line, err := journalLine(e)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.lines = append(j.lines, line)
	j.events = append(j.events, e)
	if len(j.lines) > j.max {
		n := len(j.lines) - j.max/2
		j.lines = slices.Clone(j.lines[n:])
		j.events = slices.Clone(j.events[n:])
		j.dropped += n
		j.stale = true
	}
	if j.stale {
		return j.rewrite()
	}
	if _, err := j.f.Write(line); err != nil {
		j.stale = true
		return fmt.Errorf("controller journal: %w", err)
	}
	if err := j.f.Sync(); err != nil {
		j.stale = true
		return fmt.Errorf("controller journal: %w", err)
	}
	return nil
}

// Clear empties the journal: every event in it has been judged.
func (j *Journal) Clear() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.lines, j.events = nil, nil
	if j.stale {
		return j.rewrite()
	}
	if err := j.f.Truncate(0); err != nil {
		j.stale = true
		return fmt.Errorf("controller journal: %w", err)
	}
	if _, err := j.f.Seek(0, 0); err != nil {
		j.stale = true
		return fmt.Errorf("controller journal: %w", err)
	}
	j.stale = false
	return nil
}

// Forget drops the events of a round once it has been judged and
// published: those naming it, and those naming no round (meter readings,
// which go with the round in play) that came between its first and its
// last. A reading before its first went with another round, or with none:
// it stays, for that round (one whose events surround a round that
// began and ended inside it, as a forged game_start and game_end do).
func (j *Journal) Forget(round string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	first, last := -1, -1
	for i, e := range j.events {
		if e.Round == round {
			last = i
			if first < 0 {
				first = i
			}
		}
	}
	if last < 0 {
		return nil
	}
	var lines [][]byte
	var events []Event
	for i, e := range j.events {
		if e.Round == round || e.Round == "" && first < i && i < last {
			continue
		}
		lines, events = append(lines, j.lines[i]), append(events, e)
	}
	j.lines, j.events = lines, events
	return j.rewrite()
}

// Holds reports whether the journal holds an event the same as e, field
// for field (times included): for telling a broker's re-delivery of an
// event without Seq, taken and journaled but not acknowledged, from a new
// one.
func (j *Journal) Holds(e Event) bool {
	line, err := journalLine(e)
	if err != nil {
		return false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.ContainsFunc(j.lines, func(l []byte) bool { return bytes.Equal(l, line) })
}

// Len is the number of events the journal holds.
func (j *Journal) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.lines)
}

// Dropped is the number of events dropped, oldest first, to keep the
// journal within JournalMax.
func (j *Journal) Dropped() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.dropped
}

// Close closes the journal's file; the journal stays on disk.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// rewrite writes the journal afresh from lines, to a new file renamed over
// the old, so that a crash leaves one or the other whole.
func (j *Journal) rewrite() error {
	tmp := j.path + ".tmp"
	err := func() error {
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := f.Write(bytes.Join(j.lines, nil)); err != nil {
			return err
		}
		return f.Sync()
	}()
	if err == nil {
		err = os.Rename(tmp, j.path)
	}
	if err != nil {
		os.Remove(tmp)
		j.stale = true
		return fmt.Errorf("controller journal: %w", err)
	}
	syncDir(filepath.Dir(j.path))
	f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_APPEND, 0o640)
	if err != nil {
		j.stale = true
		return fmt.Errorf("controller journal: %w", err)
	}
	if j.f != nil {
		j.f.Close()
	}
	j.f = f
	j.stale = false
	return nil
}

// syncDir makes a rename in dir durable; where the system cannot sync a
// directory, the rename is as durable as it gets.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Resume readies the events a journal held (OpenJournal) for the monitor
// started again after a kill: replay is those to take again, in order,
// and late the game_ends left out. A round's events leave the journal
// once the round is judged and published (Forget), so a game_end still
// there after its round's game_start or entries did not end the round:
// it came while the round was still being dealt, and the round was held
// open, to end when the table is cleared. Resume marks it so
// (Event.HeldOpen). (The kill may also have come in the moment between a
// game_end that ended its round and the round's lines leaving the
// journal; the round is then judged again when the table is cleared, and
// published again if it was already.)
//
// A game_end with no event of its round before it came for a round
// judged and forgotten already (a late re-send, a second one): the
// monitor killed had ignored it. The restarted monitor knows that round
// was judged only where its id reached the file of the rounds judged
// (Judged; a kill may come first), and would otherwise take its game_end
// as the end of the round in play under another id, so it is left out
// (late). (A game_end
// is left alone otherwise only by a kill in the moment after the
// game_end of a round the monitor had seen nothing else of, before it
// was judged, whose cards are then a round of the monitor's own, with no
// controller entry lost; or by the journal's bound dropping its round's
// older events, for a round whose game_end came 8192 events late.)
// events is not changed.
func Resume(events []Event) (replay, late []Event) {
	seen := map[string]bool{}
	for _, e := range events {
		switch {
		case e.Type == GameEnd && !seen[e.Round]:
			late = append(late, e)
			continue
		case e.Type == GameEnd:
			e.HeldOpen = true
		}
		if e.Round != "" {
			seen[e.Round] = true
		}
		replay = append(replay, e)
	}
	return replay, late
}
