// Command monitor watches a blackjack table through an overhead camera,
// rebuilds every round, evaluates every side bet and reports each wrong
// dealer entry to the surveillance room.
//
// Usage:
//
//	monitor par [--decks N] [--config FILE] [--json]   print the PAR sheet of the pay tables
//	monitor calibrate --frame IMG --config FILE --out overlay.png   check the camera's calibration
//	monitor enroll IMAGE_OR_VIDEO --config FILE --out DECKFILE   learn the table's own deck
//	monitor replay VIDEO --events LOG --config FILE --out results.jsonl   replay a recorded table
//	monitor inspect VIDEO --frames FROM:TO --config FILE   show what vision read in those frames
//	monitor live --config FILE   watch a table: camera in, results and alerts out over MQTT
//	monitor console --config FILE   the surveillance room's web console: every table's alerts
//	monitor version [--config FILE]   print the version, the commit and the card models
//	monitor read IMAGE... [--config FILE] [--px-per-mm N] [--json]   read the cards in still pictures
//
// Each subcommand lives in its own file; Main.Run is what tests call.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"bjmonitor/capture"
	"bjmonitor/evidence"
	"bjmonitor/vision"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-signals
		fmt.Fprintln(os.Stderr, "monitor: stopping (press Ctrl-C again to force)")
		cancel()
		<-signals
		os.Exit(130)
	}()

	m := NewMain(os.Stdout, os.Stderr)
	err := m.Run(ctx, os.Args[1:])
	cancel()
	if err != nil && !errors.Is(err, errUsage) && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "monitor:", err) // a usage error has printed the usage already
	}
	os.Exit(exitCode(err))
}

// exitCode is the status the command exits with when Run returned err: 2
// for a command line or a setting that is wrong, 130 when interrupted.
func exitCode(err error) int {
	var ce configError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.Is(err, context.Canceled):
		return 130
	case errors.As(err, &ce):
		return 2
	}
	return 1
}

// configError is a setting that is wrong: one of this command's (a
// ConfigError) or one of a library's Config that the command fills in
// (capture, evidence). Each names the field.
type configError interface {
	error
	ConfigField() string
}

var (
	_ configError = (*ConfigError)(nil)
	_ configError = (*capture.ConfigError)(nil)
	_ configError = (*evidence.ConfigError)(nil)
)

// errUsage reports a command line that could not be understood; the usage
// has already been printed.
var errUsage = errors.New("usage")

// errHelp reports that a subcommand printed its usage because -h or --help
// asked for it; Run returns nil for it.
var errHelp = errors.New("help requested")

// parseFlags parses a subcommand's flags. Asked for help (-h, --help), it
// prints the synopsis and the flags on Stdout and returns errHelp. A flag it
// cannot parse, it reports on Stderr with the same usage, and returns
// errUsage.
func (m *Main) parseFlags(fs *pflag.FlagSet, synopsis string, args []string) error {
	usage := func(w io.Writer) {
		fmt.Fprintf(w, "usage: %s\n\nFlags:\n%s", synopsis, fs.FlagUsages())
	}
	// With ContinueOnError, pflag calls Usage only for -h and --help, and
	// prints nothing on an error: the error is returned.
	fs.Usage = func() { usage(m.Stdout) }
	fs.SetOutput(m.Stderr)
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, pflag.ErrHelp):
		return errHelp
	}
	fmt.Fprintf(m.Stderr, "monitor %s: %v\n", fs.Name(), err)
	usage(m.Stderr)
	return errUsage
}

// Main holds what every subcommand writes to.
type Main struct {
	Stdout, Stderr io.Writer
	// Stdin is where console adduser reads the password.
	Stdin io.Reader
	// Terminal reports whether Stderr is a terminal, so progress bars are
	// drawn only for people, never into logs.
	Terminal bool
	// wrapReader, when set, wraps the card reader of the pipeline replay
	// opens (pipeline.Config.WrapReader): tests change readings with it.
	wrapReader func(vision.Reader) vision.Reader
}

// NewMain returns a Main writing to the given streams.
func NewMain(stdout, stderr *os.File) *Main {
	return &Main{Stdout: stdout, Stderr: stderr, Stdin: os.Stdin, Terminal: isTerminal(stderr)}
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

const usage = `monitor: a camera-based blackjack table monitor

Usage:
  monitor par [--decks N] [--config FILE] [--json] [--rounds N] [--seed N]
      Print the PAR sheet (probabilities, pays and house edge) of every
      configured side-bet pay table, or of every built-in one without a
      config.

  monitor calibrate --frame IMG [--config FILE] [--table FILE] --out overlay.png
      Find the reference marks in a frame from the camera (an image, or a
      video's first frame), solve the calibration, and draw the marks and
      the seat and dealer zones over the frame for an installer to check.

  monitor enroll IMAGE_OR_VIDEO [--config FILE] [--table FILE] --out DECKFILE
      Learn the table's own deck from a picture (or a short video) of it
      laid out face up on the felt under the calibrated camera: four rows,
      spades, hearts, diamonds and clubs from the dealer's side, each A to
      K from left to right as the camera sees it. Writes the deck file
      that vision.deck names; refuses, naming the card, when a card is
      missing, out of place or unreadable.

  monitor replay VIDEO [--events LOG] [--config FILE] [--out results.jsonl] [--annotate out.mp4]
      Run the whole pipeline on a recorded video and the controller's log:
      read every card, rebuild every round, evaluate every side bet and
      print an alert for each wrong dealer entry. With --publish, the
      results also go to mqtt.broker under mqtt.replay_prefix.

  monitor inspect VIDEO --frames FROM:TO [--config FILE] [--events LOG] [--at X,Y] [--radius MM] [--crops DIR] [--every]
      Replay a video as replay does, and for the frames asked for print
      what vision read: each card corner with the model's reading, and the
      cards made of them, near table point X,Y (mm) if given. With --crops,
      also write each corner's crop as a PNG; with --every, also show the
      frames where no zone was read. For finding out why a card was read
      as it was, or missed.

  monitor read IMAGE... [--config FILE] [--table FILE] [--px-per-mm N] [--json] [--annotate DIR]
      Read the cards in still pictures (JPEG or PNG), taken from straight
      above or up to about 30° off: each card's rank and suit, confidence,
      face up or down, sideways, and its corners in the picture (and on
      the table in mm with a table file). Without one, the table plane is
      found from the cards' own corners, and the scale from their size
      (63×88 mm) unless --px-per-mm gives it. A picture that cannot be
      read is named with the reason; the others are still read, and the
      exit status is 1.

  monitor live --config FILE [--source SRC] [--broker URL] [--out results.jsonl]
      Watch a table: frames from a camera, RTSP stream or file; the
      controller's events from <prefix>/<table>/controller; rounds,
      outcomes, alerts (with evidence) and stats published over MQTT,
      through an embedded broker when mqtt.broker is empty; Prometheus
      metrics on metrics.addr. Stops cleanly on SIGINT or SIGTERM.

  monitor console [--config FILE] [--listen ADDR] [--database DB] [--broker URL]
      The surveillance room's console: stores every table's availability,
      stats, rounds, outcomes, alerts and evidence from mqtt.broker (SQLite
      in console.database, or PostgreSQL for a postgres:// URL) and serves
      the web page on console.listen. Users are added with
      "monitor console adduser NAME --role viewer|officer" (password on
      stdin), and disabled with "monitor console deluser NAME". See
      docs/console.md.
  monitor version [--config FILE]
      Print the monitor's version and commit, and the name, creation date
      and digest of the card models the configuration names.

Configuration comes from --config FILE (YAML), then MONITOR_* environment
variables (MONITOR_TABLE_DECKS=8 sets table.decks), then flags. See
config.example.yaml for every key and its default.
`

// Run runs the subcommand named by args[0].
func (m *Main) Run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(m.Stderr, usage)
		return errUsage
	}
	var err error
	switch args[0] {
	case "par":
		err = m.runPar(ctx, args[1:])
	case "calibrate":
		err = m.runCalibrate(ctx, args[1:])
	case "enroll":
		err = m.runEnroll(ctx, args[1:])
	case "replay":
		err = m.runReplay(ctx, args[1:])
	case "live":
		err = m.runLive(ctx, args[1:])
	case "inspect":
		err = m.runInspect(ctx, args[1:])
	case "console":
		err = m.runConsole(ctx, args[1:])
	case "version":
		err = m.runVersion(ctx, args[1:])
	case "read":
		err = m.runRead(ctx, args[1:])
	case "help", "-h", "--help":
		fmt.Fprint(m.Stdout, usage)
	default:
		fmt.Fprintf(m.Stderr, "monitor: unknown command %q\n\n%s", args[0], usage)
		return errUsage
	}
	if errors.Is(err, errHelp) {
		return nil
	}
	return err
}
