// Package clip renders a synthetic blackjack clip: it stages a script (the
// screenplay of rounds, package script) on a scene (the table and camera,
// package scene), writes the video, the controller log, the table file and
// the ground truth, and measures nothing itself.
//
// It also offers the truth as the monitor's vision would report it
// (Observations), so that later stages can be tested on perfect or
// deliberately degraded readings before the vision is run.
package clip
