package ingest

import (
	"bufio"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"bjmonitor/evidence/ship"
)

var now = time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)

// samples reads testdata/messages.txt: topic and payload pairs.
func samples(tb testing.TB) [][2]string {
	tb.Helper()
	f, err := os.Open("testdata/messages.txt")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out [][2]string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			topic, payload, _ := strings.Cut(line, " ")
			out = append(out, [2]string{topic, payload})
		}
	}
	return out
}

func TestParseSamples(t *testing.T) {
	for _, s := range samples(t) {
		m, err := Parse("bjmonitor", s[0], []byte(s[1]), now)
		if err != nil {
			t.Errorf("Parse(%s): %v", s[0], err)
			continue
		}
		if m.Table != "table-7" || !strings.HasSuffix(s[0], "/"+m.Kind) {
			t.Errorf("Parse(%s) = table %q kind %q", s[0], m.Table, m.Kind)
		}
	}
}

func TestParse(t *testing.T) {
	alert := `{"type":"alert","id":"t:1:3:21+3:overpaid","table":"t","round":"1","seat":3,"bet":"21+3","kind":"overpaid","severity":"review","expected":9,"entered":45}`
	m, err := Parse("site/a", "site/a/t/alert", []byte(alert), now)
	if err != nil {
		t.Fatal(err)
	}
	a := m.Alert
	if a.ID != "t:1:3:21+3:overpaid" || a.Table != "t" || a.Round != "1" || a.Seat != 3 || a.Bet != "21+3" || a.Kind != "overpaid" ||
		a.Severity != "review" || a.Expected != 9 || a.Entered != 45 || !a.Received.Equal(now) || string(a.Body) != alert {
		t.Errorf("Parse(alert) = %+v", a)
	}
	st, err := Parse("p", "p/t/stats", []byte(`{"type":"stats","table":"t","ts":"2030-01-01T00:00:00Z","fps":25}`), now)
	if err != nil || !st.Stats.At.Equal(now) || st.Stats.FPS != 25 {
		t.Errorf("stats from a clock ahead = %+v, %v; want at now, 25 fps", st.Stats, err)
	}
	ev, err := ship.Encode(ship.Header{Alert: "t:1:3:21+3:overpaid", File: "clip", ContentType: "video/mp4"}, []byte("\x00\x00\x00\x18ftypmp42\n"))
	if err != nil {
		t.Fatal(err)
	}
	m, err = Parse("p", "p/t/evidence", ev, now)
	if err != nil || m.Evidence.AlertID != "t:1:3:21+3:overpaid" || m.Evidence.File != "clip" || string(m.Evidence.Data) != "\x00\x00\x00\x18ftypmp42\n" {
		t.Errorf("Parse(evidence) = %+v, %v", m.Evidence, err)
	}
}

func TestParseMalformed(t *testing.T) {
	cases := []struct{ name, topic, payload string }{
		{"other prefix", "other/t/alert", `{}`},
		{"no table", "p//alert", `{}`},
		{"too deep", "p/t/x/alert", `{}`},
		{"unknown kind", "p/t/controller", `{"type":"game_start"}`},
		{"availability", "p/t/available", `maybe`},
		{"not json", "p/t/round", `{"type":`},
		{"wrong type", "p/t/round", `{"type":"alert","table":"t","round":"1"}`},
		{"wrong table", "p/t/round", `{"type":"round","table":"u","round":"1"}`},
		{"no round", "p/t/round", `{"type":"round","table":"t"}`},
		{"round a number", "p/t/round", `{"type":"round","table":"t","round":1}`},
		{"round not the layout", "p/t/round", `{"type":"round","table":"t","round":"1","dealer":{"cards":["7S"]},"seats":[]}`},
		{"outcome without bet", "p/t/outcome", `{"type":"outcome","table":"t","round":"1","seat":2}`},
		{"alert without id", "p/t/alert", `{"type":"alert","table":"t","round":"1","kind":"overpaid","severity":"mismatch"}`},
		{"stats ts", "p/t/stats", `{"type":"stats","table":"t","ts":"yesterday"}`},
		{"evidence no header", "p/t/evidence", `\xff\xd8`},
		{"evidence bad file", "p/t/evidence", "{\"alert\":\"a\",\"file\":\"passwd\",\"content_type\":\"image/jpeg\"}\nxx"},
		{"evidence bad type", "p/t/evidence", "{\"alert\":\"a\",\"file\":\"snapshot\",\"content_type\":\"text/html\"}\nxx"},
		{"evidence empty", "p/t/evidence", "{\"alert\":\"a\",\"file\":\"snapshot\",\"content_type\":\"image/jpeg\"}\n"},
		{"evidence no alert", "p/t/evidence", "{\"file\":\"snapshot\",\"content_type\":\"image/jpeg\"}\nxx"},
	}
	for _, c := range cases {
		_, err := Parse("p", c.topic, []byte(c.payload), now)
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: Parse(%s, %q) error = %v, want ErrMalformed", c.name, c.topic, c.payload, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range samples(f) {
		f.Add(s[0], []byte(s[1]))
	}
	f.Add("bjmonitor/t/evidence", []byte("{\"alert\":\"a\",\"file\":\"clip\",\"content_type\":\"video/mp4\"}\n\x00"))
	f.Fuzz(func(t *testing.T, topic string, payload []byte) {
		m, err := Parse("bjmonitor", topic, payload, now)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("Parse error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if m.Table == "" || strings.Contains(m.Table, "/") {
			t.Errorf("Parse(%q) = table %q", topic, m.Table)
		}
		if m.Kind == KindAlert && m.Alert.ID == "" {
			t.Errorf("Parse(%q) = an alert without id", topic)
		}
	})
}
