// Package backoff is the reconnect schedule the monitor's clients share
// (the camera's capture, the broker's publisher): the delays before each
// retry after a failure, the last one repeated for ever, and a sleep that
// ends early when its context does.
//
//	for attempt := 0; ; attempt++ {
//		if err := connect(); err == nil {
//			break
//		}
//		if !backoff.Sleep(ctx, backoff.Schedule(cfg.Backoff).Delay(attempt)) {
//			return ctx.Err()
//		}
//	}
package backoff

import (
	"context"
	"time"
)

// Schedule is the delays before each retry after a failure, in turn; the
// last repeats. It must not be empty.
type Schedule []time.Duration

// Delay is the wait before retry n (0 first).
func (s Schedule) Delay(n int) time.Duration {
	return s[max(0, min(n, len(s)-1))]
}

// Sleep waits d, or less when ctx ends; it reports whether ctx is still
// live.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
