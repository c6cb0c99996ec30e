package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/pflag"

	"bjmonitor/vision/classify"
)

// version and commit name the build. scripts/package sets them with
// go build -ldflags "-X main.version=V -X main.commit=C", and the Debian
// package carries the same version. A plain go build leaves them empty,
// and the module's version and the VCS data Go stamped into the binary
// stand in.
var version, commit string

// versionUsage is the synopsis of monitor version.
const versionUsage = "monitor version [--config FILE]"

// runVersion prints the monitor's version, its commit and the card models
// the configuration names, with each model's name, creation date and
// digest from its metadata. A model that cannot be read is an error, after
// the rest is printed: an installed box whose models are missing fails
// this check.
func (m *Main) runVersion(_ context.Context, args []string) error {
	fs := pflag.NewFlagSet("version", pflag.ContinueOnError)
	configPath := fs.String("config", "", "configuration file (YAML) naming the models (default: the built-in paths)")
	if err := m.parseFlags(fs, versionUsage, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fmt.Fprintln(m.Stderr, "usage:", versionUsage)
		return errUsage
	}
	cfg, err := loadConfig(*configPath, fs, nil)
	if err != nil {
		return err
	}
	bi, _ := debug.ReadBuildInfo()
	b := readBuild(bi, version, commit)
	fmt.Fprintf(m.Stdout, "monitor %s\n", b.Version)
	fmt.Fprintf(m.Stdout, "commit %s\n", b.commitLine())
	fmt.Fprintf(m.Stdout, "built with %s %s/%s\n", b.Go, runtime.GOOS, runtime.GOARCH)
	var firstErr error
	for _, f := range []struct{ what, field, path string }{
		{"model", "vision.model", cfg.Vision.Model},
		{"fast model", "vision.fast_model", cfg.Vision.FastModel},
	} {
		if f.path == "" {
			continue
		}
		meta, err := classify.ReadMetadata(f.path)
		if err != nil {
			fmt.Fprintf(m.Stdout, "%s unreadable: %s\n", f.what, f.path)
			if firstErr == nil {
				firstErr = &ConfigError{f.field, f.path, err.Error()}
			}
			continue
		}
		fmt.Fprintf(m.Stdout, "%s %s\n", f.what, modelName(meta, f.path))
	}
	if p := cfg.Vision.FeaturesModel; p != "" && cfg.Vision.Deck != "" {
		meta, err := classify.ReadFeaturesMetadata(p)
		if err != nil {
			fmt.Fprintf(m.Stdout, "features model unreadable: %s\n", p)
			if firstErr == nil {
				firstErr = &ConfigError{"vision.features_model", p, err.Error()}
			}
		} else {
			fmt.Fprintf(m.Stdout, "features model %s, from %s, sha256 %.12s (%s)\n", meta.Model, meta.Source, meta.SHA256, p)
		}
	}
	if p := cfg.Vision.SuitsModel; p != "" && cfg.Vision.CountPips {
		meta, err := classify.ReadPipSuitsMetadata(p)
		if err != nil {
			fmt.Fprintf(m.Stdout, "pip suit model unreadable: %s\n", p)
			if firstErr == nil {
				firstErr = &ConfigError{"vision.suits_model", p, err.Error()}
			}
		} else {
			fmt.Fprintf(m.Stdout, "pip suit model %s, created %s, sha256 %.12s (%s)\n", meta.Model, meta.Created, meta.SHA256, p)
		}
	}
	return firstErr
}

// modelName names a model by its file, its creation date and the start of
// its digest, which together tell one training run from another.
func modelName(meta classify.Metadata, path string) string {
	return fmt.Sprintf("%s, created %s, sha256 %.12s (%s)", meta.Model, meta.Created, meta.SHA256, path)
}

// build is what the binary knows about how it was built.
type build struct {
	Version  string
	Commit   string // full hash, or "" when unknown
	Time     string // the commit's time, RFC 3339, from the VCS data only
	Modified bool   // built from a working tree with uncommitted changes
	Go       string
}

// readBuild takes the version and commit set at link time, and falls back
// to the module version and VCS data in bi (nil when the binary carries
// none) for what the link left empty.
func readBuild(bi *debug.BuildInfo, linkVersion, linkCommit string) build {
	b := build{Version: linkVersion, Commit: linkCommit, Go: runtime.Version()}
	if bi != nil {
		b.Go = bi.GoVersion
		if b.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			b.Version = bi.Main.Version
		}
		vcsCommit := ""
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				vcsCommit = s.Value
			case "vcs.time":
				b.Time = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
		if b.Commit == "" {
			b.Commit = vcsCommit
		} else if vcsCommit != b.Commit {
			// The VCS data describes another commit than the link's:
			// neither its time nor its state applies.
			b.Time, b.Modified = "", false
		}
	}
	if b.Version == "" {
		b.Version = "(devel)"
	}
	return b
}

func (b build) commitLine() string {
	if b.Commit == "" {
		return "unknown (built without VCS data; scripts/package sets it)"
	}
	s := b.Commit
	if b.Time != "" {
		s += " " + b.Time
	}
	if b.Modified {
		s += " (modified)"
	}
	return s
}
