package evidence

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"time"

	"gocv.io/x/gocv"

	"bjmonitor/video"
)

// run is the background goroutine: it encodes the clips that are ready,
// writes the late ones with what they have, and applies retention. It ends
// with the context (leaving unwritten clips to Close) or, after draining,
// with Close.
func (r *Recorder) run() {
	defer close(r.done)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		closing := false
		select {
		case <-r.ctx.Done():
			return
		case <-r.closing:
			closing = true
		case <-r.wake:
		case now := <-tick.C:
			r.expire(now)
		}
		for c := r.pop(); c != nil; c = r.pop() {
			if err := r.writeClip(r.ctx, c); interrupted(r.ctx, err) {
				r.mu.Lock()
				r.queue = append([]*clip{c}, r.queue...)
				r.mu.Unlock()
				return
			}
		}
		if closing {
			return
		}
		r.mu.Lock()
		due := r.prune
		r.prune = false
		r.mu.Unlock()
		if due {
			r.applyRetention(time.Now())
		}
	}
}

// expire sends the pending clips whose last frames are overdue to the
// encoder.
func (r *Recorder) expire(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := r.pending[:0]
	for _, c := range r.pending {
		if now.After(c.deadline) {
			r.log.Warn("evidence: clip written without its last frames (no frames came)", "clip", c.path)
			r.queue = append(r.queue, c)
			continue
		}
		kept = append(kept, c)
	}
	clear(r.pending[len(kept):])
	r.pending = kept
}

// pop takes the next clip to encode, or nil.
func (r *Recorder) pop() *clip {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.queue) == 0 {
		return nil
	}
	c := r.queue[0]
	r.queue[0] = nil
	r.queue = r.queue[1:]
	return c
}

// writeClip encodes c at the kept frame rate, through a temporary file
// renamed into place. Frames of another size (the camera changed mode)
// are resized to the first one's.
func (r *Recorder) writeClip(ctx context.Context, c *clip) (err error) {
	defer func() {
		if interrupted(ctx, err) {
			return // Close writes it
		}
		if err != nil {
			r.errs.Add(1)
			r.log.Error("evidence: clip not written", "clip", c.path, "err", err)
		}
		r.mu.Lock()
		delete(r.reserved, c.base)
		r.prune = true
		r.mu.Unlock()
	}()
	if len(c.frames) == 0 {
		return fmt.Errorf("evidence: clip %s: no frames kept between %.2f s and %.2f s", c.path, c.start, c.end)
	}
	// Alerts of one round often share their moment (game end): encode
	// their common clip once, and link it.
	key := clipKey{c.frames[0].t, c.frames[len(c.frames)-1].t, len(c.frames)}
	if r.lastClip.key == key && os.Link(r.lastClip.path, c.path) == nil {
		r.clips.Add(1)
		return nil
	}
	tmp := partName(c.path)
	var w *video.Writer
	var size image.Point
	fail := func(e error) error {
		if w != nil {
			w.Close()
		}
		os.Remove(tmp)
		return e
	}
	img := gocv.NewMat()
	defer img.Close()
	resized := gocv.NewMat()
	defer resized.Close()
	for _, f := range c.frames {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		if err := decodeInto(f.jpeg, &img); err != nil {
			return fail(err)
		}
		if w == nil {
			size = image.Pt(img.Cols(), img.Rows())
			if w, err = video.CreateBackground(tmp, r.cfg.FPS, size.X, size.Y, video.DefaultCRF); err != nil {
				return fail(fmt.Errorf("evidence: clip %s: %w", c.path, err))
			}
		}
		out := img
		if img.Cols() != size.X || img.Rows() != size.Y {
			gocv.Resize(img, &resized, size, 0, 0, gocv.InterpolationArea)
			out = resized
		}
		if err := w.Write(out); err != nil {
			return fail(fmt.Errorf("evidence: clip %s: %w", c.path, err))
		}
	}
	err = w.Close()
	w = nil
	if err != nil {
		return fail(fmt.Errorf("evidence: clip %s: %w", c.path, err))
	}
	if err := os.Rename(tmp, c.path); err != nil {
		return fail(fmt.Errorf("evidence: clip %s: %w", c.path, err))
	}
	r.clips.Add(1)
	r.lastClip.key, r.lastClip.path = key, c.path
	return nil
}

// clipKey tells clips of the same frames apart from others.
type clipKey struct {
	first, last float64
	n           int
}

// interrupted says whether err is ctx ending.
func interrupted(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err())
}

// decodeInto decodes a kept JPEG into dst (owned by the caller).
func decodeInto(jpeg []byte, dst *gocv.Mat) error {
	m, err := gocv.IMDecode(jpeg, gocv.IMReadColor)
	if err != nil {
		return fmt.Errorf("evidence: kept frame: %w", err)
	}
	defer m.Close()
	if m.Empty() {
		return errors.New("evidence: kept frame does not decode")
	}
	m.CopyTo(dst)
	return nil
}
