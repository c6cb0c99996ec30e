package evidence

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// partAge is how old a hidden part file must be before retention takes it
// for the leftover of a crash rather than a file being written.
const partAge = time.Hour

// applyRetention deletes the evidence files (.jpg and .mp4) in Dir older
// than MaxAge, then the oldest ones while together they exceed MaxBytes,
// and the part files a crash left. Age is the file's modification time.
func (r *Recorder) applyRetention(now time.Time) error {
	entries, err := os.ReadDir(r.cfg.Dir)
	if err != nil {
		r.errs.Add(1)
		return err
	}
	type file struct {
		path string
		size int64
		mod  time.Time
	}
	var files []file
	var total int64
	for _, e := range entries {
		name := e.Name()
		ext := filepath.Ext(name)
		if !e.Type().IsRegular() || ext != ".jpg" && ext != ".mp4" {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // deleted meanwhile
		}
		mod := info.ModTime()
		if strings.HasPrefix(name, ".") {
			if now.Sub(mod) < partAge {
				continue // being written
			}
			mod = time.Time{} // left by a crash: first to go
		}
		files = append(files, file{filepath.Join(r.cfg.Dir, name), info.Size(), mod})
		total += info.Size()
	}
	slices.SortFunc(files, func(a, b file) int { return a.mod.Compare(b.mod) })
	var errs []error
	for _, f := range files {
		if !f.mod.Before(now.Add(-r.cfg.MaxAge)) && total <= r.cfg.MaxBytes {
			break
		}
		if err := os.Remove(f.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			r.errs.Add(1)
			errs = append(errs, err)
			continue
		}
		total -= f.size
		r.prunedFiles.Add(1)
		r.prunedBytes.Add(uint64(f.size))
	}
	return errors.Join(errs...)
}
