// Package sdnotify tells systemd how a service is doing, over the
// notification protocol of sd_notify(3): one datagram of KEY=VALUE lines
// to the Unix socket named by $NOTIFY_SOCKET. Outside systemd (no
// $NOTIFY_SOCKET) every call does nothing.
//
// A Notifier sends single messages (Ready, Watchdog, Status, Stopping). A
// Supervisor turns a service's state into those messages: READY=1 once
// the service says it is ready, then WATCHDOG=1 for as long as work keeps
// arriving, so that systemd restarts a service whose input has stalled
// (WatchdogSec= in the unit).
//
//	sv := sdnotify.Supervise(ctx, sdnotify.FromEnv(), sdnotify.Checks{
//		Connected:  pub.Connected,               // the broker is up
//		SourceAway: func() bool { return !cam.Connected() }, // reconnecting on its own
//	}, log)
//	defer sv.Stop() // STOPPING=1, and waits for the supervisor's goroutine
//	for {
//		// … take a frame …
//		sv.Frame(calibrated)
//	}
package sdnotify
