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
)

// JudgedMax bounds the round ids a Judged keeps: the last 64 rounds, an
// hour of play, far more than a controller's late re-send reaches back.
const JudgedMax = 64

// ErrJudgedCorrupt is the cause of ParseJudged's error: the file is torn or
// corrupt, and says nothing of the rounds judged.
var ErrJudgedCorrupt = errors.New("torn or corrupt")

// Judged keeps on disk the ids of the last rounds a monitor judged, next
// to its journal, so that a monitor started again after a kill still
// knows them: a late game_end, payout or wager for one of them (a re-send
// without seq, a second entry) is not taken as the round in play's. The
// journal forgets a round once it is published, so it cannot tell.
//
// The file is one line, written afresh and renamed over the old one, so a
// crash leaves one or the other whole: the CRC-32 (Castagnoli) of a JSON
// array of the ids, oldest first, in 8 hex digits, a space, the array, a
// newline. A Judged is not safe for concurrent use; it holds no open file.
type Judged struct {
	path string
	ids  []string // as the file holds them
	// read: ids is what the file holds (it was read whole, or written).
	read bool
}

// OpenJudged reads the file at path, if there is one, and returns the ids
// it holds, oldest first. It fails with a nil Judged only when the file
// cannot be read. A file that is torn or corrupt is an error wrapping
// ErrJudgedCorrupt, with a Judged that holds no id and writes the file
// afresh at the next Save.
func OpenJudged(path string) (*Judged, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("rounds judged: %w", err)
	}
	j := &Judged{path: path}
	ids, err := ParseJudged(data)
	if err != nil {
		return j, nil, fmt.Errorf("rounds judged, %s: %w", path, err)
	}
	j.ids, j.read = ids, true
	return j, slices.Clone(ids), nil
}

// ParseJudged reads a judged file's contents (see Judged): the ids, oldest
// first, at most JudgedMax of them (the last). Empty contents hold no id.
// Anything else that is not a whole line whose checksum matches, holding
// an array of non-empty ids, is an error wrapping ErrJudgedCorrupt.
func ParseJudged(data []byte) ([]string, error) {
	if len(data) == 0 {
		return nil, nil
	}
	const sum = 8 // hex digits
	line, ok := bytes.CutSuffix(data, []byte("\n"))
	if !ok || len(line) < sum+2 || line[sum] != ' ' || bytes.IndexByte(line, '\n') >= 0 {
		return nil, ErrJudgedCorrupt
	}
	var want [4]byte
	if _, err := hex.Decode(want[:], line[:sum]); err != nil {
		return nil, ErrJudgedCorrupt
	}
	body := line[sum+1:]
	c := crc32.Checksum(body, castagnoli)
	if want != [4]byte{byte(c >> 24), byte(c >> 16), byte(c >> 8), byte(c)} {
		return nil, ErrJudgedCorrupt
	}
	var ids []string
	if err := json.Unmarshal(body, &ids); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrJudgedCorrupt, err)
	}
	if slices.Contains(ids, "") {
		return nil, fmt.Errorf("%w: an empty round id", ErrJudgedCorrupt)
	}
	return ids[max(0, len(ids)-JudgedMax):], nil
}

// judgedFile is the file's contents for ids.
func judgedFile(ids []string) ([]byte, error) {
	if ids == nil {
		ids = []string{}
	}
	body, err := json.Marshal(ids)
	if err != nil {
		return nil, fmt.Errorf("rounds judged: %w", err)
	}
	return fmt.Appendf(nil, "%08x %s\n", crc32.Checksum(body, castagnoli), body), nil
}

// Save keeps ids, the rounds judged lately, oldest first (only the last
// JudgedMax), writing the file afresh when they changed. When the disk
// refuses it, the file keeps the last ids saved, and the next Save writes
// it again.
func (j *Judged) Save(ids []string) error {
	ids = ids[max(0, len(ids)-JudgedMax):]
	if j.read && slices.Equal(ids, j.ids) {
		return nil
	}
	data, err := judgedFile(ids)
	if err != nil {
		return err
	}
	tmp := j.path + ".tmp"
	err = func() error {
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := f.Write(data); err != nil {
			return err
		}
		return f.Sync()
	}()
	if err == nil {
		err = os.Rename(tmp, j.path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("rounds judged: %w", err)
	}
	syncDir(filepath.Dir(j.path))
	j.ids, j.read = slices.Clone(ids), true
	return nil
}
