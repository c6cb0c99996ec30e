package sdnotify

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Checks are the service's state the Supervisor reads at each tick, from
// its own goroutine: each func must be safe to call from there.
type Checks struct {
	// Connected reports whether the service's output is up (the broker
	// connection). nil: always.
	Connected func() bool
	// SourceAway reports that the frames' source is known to be gone and
	// is being reconnected on its own schedule. The watchdog is fed while
	// it is away: a restart would not bring the camera back sooner, and
	// only a source that claims to be there yet delivers nothing has
	// stalled. nil: never away.
	SourceAway func() bool
}

// Supervisor reports a frame-driven service's readiness and liveness to
// systemd. It sends READY=1 at the first tick when the last frame was
// calibrated and Checks.Connected holds, and then WATCHDOG=1 at every
// tick at which frames have arrived since the previous one (or the source
// is away). Before READY=1 it extends the start timeout on the same
// condition (EXTEND_TIMEOUT_USEC), so that a capture stalled while the
// service starts is restarted too. STATUS= follows what it waits for.
//
// Supervise starts it; Stop ends it, and the caller must call Stop.
type Supervisor struct {
	n      *Notifier
	checks Checks
	log    *slog.Logger
	tick   time.Duration

	frames     atomic.Uint64
	calibrated atomic.Bool

	failing bool // the last notification failed; touched by loop, then Stop

	cancel   context.CancelFunc
	done     chan struct{}
	stopOnce sync.Once
}

// maxTick bounds the interval between checks when the watchdog allows a
// longer one: readiness is noticed within it.
const maxTick = time.Second

// Supervise starts supervising until ctx ends or Stop is called. With n
// disabled it still runs, and sends nothing.
func Supervise(ctx context.Context, n *Notifier, c Checks, log *slog.Logger) *Supervisor {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Supervisor{n: n, checks: c, log: log, tick: maxTick, cancel: cancel, done: make(chan struct{})}
	// systemd's advice: ping at half the timeout. A quarter leaves room
	// for a tick that found no new frame by chance.
	if wd := n.WatchdogTimeout(); wd > 0 && wd/4 < s.tick {
		s.tick = wd / 4
	}
	go func() {
		defer close(s.done)
		s.loop(ctx)
	}()
	return s
}

// Frame records that a frame was taken from the source, and whether the
// camera is calibrated. The frame loop calls it for every frame; it only
// stores two atomics.
func (s *Supervisor) Frame(calibrated bool) {
	s.frames.Add(1)
	s.calibrated.Store(calibrated)
}

// Stop tells systemd the service is stopping and waits for the
// supervisor's goroutine to end. It is safe to call more than once.
func (s *Supervisor) Stop() {
	s.stopOnce.Do(func() {
		s.cancel()
		<-s.done
		s.send(s.n.Stopping())
	})
}

// state is what one tick found.
type state struct {
	flowing, away, calibrated, connected bool
	seen                                 bool // any frame since the start
}

func (st state) alive() bool { return st.flowing || st.away }

// status is the line systemctl status shows for st.
func (st state) status(stalledFor time.Duration) string {
	switch {
	case st.away && !st.seen:
		return "waiting for the camera"
	case st.away:
		return "the camera is away: reconnecting"
	case !st.flowing && stalledFor > 0:
		// The camera stalled, or the frame loop is stuck on a frame.
		return fmt.Sprintf("no frame taken from the camera for %.1fs", stalledFor.Seconds())
	case !st.seen:
		return "waiting for the first frame"
	case !st.calibrated:
		return "calibrating: looking for the reference marks or points"
	case !st.connected:
		return "waiting for the broker"
	}
	return "watching the table"
}

func (s *Supervisor) loop(ctx context.Context) {
	t := time.NewTicker(s.tick)
	defer t.Stop()
	var (
		last       uint64
		ready      bool
		lastStatus string
		aliveAt    time.Time // the last tick at which the service was alive
	)
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			frames := s.frames.Load()
			st := state{
				flowing:    frames != last,
				seen:       frames > 0,
				away:       s.checks.SourceAway != nil && s.checks.SourceAway(),
				calibrated: s.calibrated.Load(),
				connected:  s.checks.Connected == nil || s.checks.Connected(),
			}
			last = frames
			var stalledFor time.Duration
			switch {
			case st.alive():
				aliveAt = now
			case !aliveAt.IsZero() && now.Sub(aliveAt) >= 2*s.tick:
				// One tick without a frame is a slow frame, not yet a
				// stall worth a status line.
				stalledFor = now.Sub(aliveAt)
			}
			status := st.status(stalledFor)
			switch {
			case !ready && st.seen && st.calibrated && st.connected:
				ready = true
				s.log.Info("ready: calibrated and connected", "systemd", s.n.Enabled())
				s.send(s.n.Ready(status))
			case status != lastStatus:
				s.send(s.n.Status(status))
			}
			lastStatus = status
			s.feed(st, ready)
		}
	}
}

// feed feeds the watchdog, or before READY=1 extends the start timeout, when
// the service is alive; else it lets the timeout run.
func (s *Supervisor) feed(st state, ready bool) {
	wd := s.n.WatchdogTimeout()
	if wd == 0 || !st.alive() {
		return
	}
	if ready {
		s.send(s.n.Watchdog())
	} else {
		s.send(s.n.extendStart(wd))
	}
}

// send logs the first of a run of messages systemd could not be sent,
// and the recovery; it is not fatal, and systemd acts on what is missing.
func (s *Supervisor) send(err error) {
	switch {
	case err != nil && !s.failing:
		s.log.Warn("systemd notifications not sent", "err", err)
	case err == nil && s.failing:
		s.log.Info("systemd notifications sent again")
	}
	s.failing = err != nil
}
