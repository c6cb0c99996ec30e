package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that notes failures instead of failing.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

// TestCheck: the same text passes, other text or a missing file fails,
// and with -update the file is rewritten and passes.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.golden")
	if err := os.WriteFile(path, []byte("7S 7C 7H\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		path     string
		got      string
		updating bool
		fails    bool
	}{
		{"the same", path, "7S 7C 7H\n", false, false},
		{"different", path, "7S 7C 7D\n", false, true},
		{"no golden file", filepath.Join(dir, "none.golden"), "7S\n", false, true},
		{"rewritten", path, "AS KS\n", true, false},
		{"as rewritten", path, "AS KS\n", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			*update = tt.updating
			defer func() { *update = false }()
			r := &recorder{TB: t}
			Check(r, tt.path, tt.got)
			if fails := len(r.failures) > 0; fails != tt.fails {
				t.Errorf("Check failed %v (%q), want %v", fails, r.failures, tt.fails)
			}
		})
	}
}
