package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"bjmonitor/vision/classify"
)

func TestReadBuild(t *testing.T) {
	vcs := func(rev, time, modified string) *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: time}, {Key: "vcs.modified", Value: modified}}}
	}
	tests := []struct {
		name                string
		bi                  *debug.BuildInfo
		linkVersion, commit string
		want                build
	}{
		{"package build", vcs("abc123", "2026-12-01T18:00:00Z", "false"), "0.3.0", "abc123",
			build{Version: "0.3.0", Commit: "abc123", Time: "2026-12-01T18:00:00Z", Go: "go1.26.8"}},
		{"link names another commit than the VCS data", vcs("def456", "2026-12-01T18:00:00Z", "true"), "0.3.0", "abc123",
			build{Version: "0.3.0", Commit: "abc123", Go: "go1.26.8"}},
		{"plain go build in a modified tree", vcs("abc123", "2026-12-01T18:00:00Z", "true"), "", "",
			build{Version: "(devel)", Commit: "abc123", Time: "2026-12-01T18:00:00Z", Modified: true, Go: "go1.26.8"}},
		{"module version stamped by go", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261201180000-abc123abc123"}}, "", "",
			build{Version: "v0.0.0-20261201180000-abc123abc123", Go: "go1.26.8"}},
		{"no build info", nil, "", "", build{Version: "(devel)", Go: ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readBuild(tt.bi, tt.linkVersion, tt.commit)
			if tt.bi == nil {
				got.Go = "" // runtime.Version(), whatever runs the test
			}
			if got != tt.want {
				t.Errorf("readBuild = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestVersion: the version command names the configured models from their
// metadata, and fails on a model it cannot read.
func TestVersion(t *testing.T) {
	model, err := filepath.Abs(filepath.Join("..", "..", "models", "cardindex", "cardindex.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	suits := abs(t, bundledSuitsModel)
	writeFile(t, good, "vision:\n  model: "+model+"\n  fast_model: \"\"\n  suits_model: "+suits+"\n")
	writeFile(t, bad, "vision:\n  model: "+filepath.Join(dir, "missing.onnx")+"\n  fast_model: \"\"\n")

	stdout, stderr, err := run(t, "version", "--config", good)
	if err != nil {
		t.Fatalf("monitor version: %v\n%s", err, stderr)
	}
	// The model line names what the model's metadata file says of it.
	meta, err := os.ReadFile(strings.TrimSuffix(model, ".onnx") + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Created, SHA256 string }
	if err := json.Unmarshal(meta, &m); err != nil || len(m.SHA256) < 12 || m.Created == "" {
		t.Fatalf("%s: created %q, sha256 %q (%v)", model, m.Created, m.SHA256, err)
	}
	sm, err := classify.ReadPipSuitsMetadata(suits)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"monitor ", "commit ", "model cardindex.onnx, created " + m.Created + ", sha256 " + m.SHA256[:12] + " ",
		"pip suit model pipsuit.onnx, created " + sm.Created + ", sha256 " + sm.SHA256[:12] + " "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("monitor version printed\n%s\nwant %q in it", stdout, want)
		}
	}
	// With a deck, the features model the deck is compared by is named
	// too, with the model it was taken from.
	features := strings.TrimSuffix(model, ".onnx") + "-features.onnx"
	withDeck := filepath.Join(dir, "deck.yaml")
	writeFile(t, withDeck, "vision:\n  model: "+model+"\n  fast_model: \"\"\n  suits_model: "+suits+"\n  deck: table.deck.json\n  features_model: "+features+"\n")
	stdout, stderr, err = run(t, "version", "--config", withDeck)
	if err != nil {
		t.Fatalf("monitor version with a deck: %v\n%s", err, stderr)
	}
	fm, err := classify.ReadFeaturesMetadata(features)
	if err != nil {
		t.Fatal(err)
	}
	if want := "features model cardindex-features.onnx, from cardindex.onnx, sha256 " + fm.SHA256[:12] + " "; !strings.Contains(stdout, want) {
		t.Errorf("monitor version with a deck printed\n%s\nwant %q in it", stdout, want)
	}
	stdout, _, err = run(t, "version", "--config", bad)
	if got := exitCode(err); got != 2 || !strings.Contains(stdout, "model unreadable") {
		t.Errorf("monitor version with a missing model: exit status %d (%v), printed\n%s\nwant 2 and the model unreadable", got, err, stdout)
	}
}

// TestFindData: a relative model path is found in the working folder
// first, then in the data folder beside the binary's.
func TestFindData(t *testing.T) {
	root := t.TempDir()
	exe := filepath.Join(root, "usr", "bin", "monitor")
	installed := filepath.Join(root, "usr", "share", "bjmonitor", "models", "m.onnx")
	writeFile(t, exe, "")
	writeFile(t, installed, "")
	work := t.TempDir()
	t.Chdir(work)
	writeFile(t, filepath.Join(work, "local", "m.onnx"), "")
	tests := []struct{ name, path, exe, want string }{
		{"empty", "", exe, ""},
		{"absolute", "/nowhere/m.onnx", exe, "/nowhere/m.onnx"},
		{"in the working folder", "local/m.onnx", exe, "local/m.onnx"},
		{"installed", "models/m.onnx", exe, installed},
		{"nowhere", "models/other.onnx", exe, "models/other.onnx"},
		{"binary unknown", "models/m.onnx", "", "models/m.onnx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := findData(tt.path, tt.exe); got != tt.want {
				t.Errorf("findData(%q, %q) = %q, want %q", tt.path, tt.exe, got, tt.want)
			}
		})
	}
}

func writeFile(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}
