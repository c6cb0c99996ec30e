package deploy

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"go.yaml.in/yaml/v3"

	"bjmonitor/internal/mqtttest"
	"bjmonitor/publish/testcert"
)

// exported returns the names of the metrics monitor live exports, read
// from cmd/monitor/metrics.go: the Name of every *Opts literal, under the
// namespace it declares.
func exported(tb testing.TB) map[string]bool {
	tb.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join("..", "cmd", "monitor", "metrics.go"), nil, 0)
	if err != nil {
		tb.Fatal(err)
	}
	ns := ""
	var names []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			if len(n.Names) == 1 && n.Names[0].Name == "ns" && len(n.Values) == 1 {
				if lit, ok := n.Values[0].(*ast.BasicLit); ok {
					ns, _ = strconv.Unquote(lit.Value)
				}
			}
		case *ast.KeyValueExpr:
			if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Name" {
				if lit, ok := n.Value.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					names = append(names, s)
				}
			}
		}
		return true
	})
	if ns == "" || len(names) < 10 {
		tb.Fatalf("read namespace %q and %d metric names from metrics.go: has it changed shape?", ns, len(names))
	}
	out := map[string]bool{}
	for _, n := range names {
		out[ns+"_"+n] = true
	}
	return out
}

var metricName = regexp.MustCompile(`\bbjmonitor_[a-z0-9_]+`)

// checkExpr reports every bjmonitor_ metric expr uses that the monitor
// does not export (a histogram's _bucket, _sum and _count included).
func checkExpr(t *testing.T, where, expr string, have map[string]bool) []string {
	t.Helper()
	var used []string
	for _, m := range metricName.FindAllString(expr, -1) {
		base := m
		for _, suf := range []string{"_bucket", "_sum", "_count"} {
			if b, ok := strings.CutSuffix(m, suf); ok && have[b] {
				base = b
			}
		}
		if !have[base] {
			t.Errorf("%s: %s is not a metric monitor live exports (cmd/monitor/metrics.go)", where, m)
		}
		used = append(used, base)
	}
	return used
}

// TestDashboard: the dashboard parses, every query names metrics the
// monitor exports, and it shows what a site watches.
func TestDashboard(t *testing.T) {
	have := exported(t)
	var dash struct {
		UID    string `json:"uid"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	b, err := os.ReadFile(filepath.Join("grafana", "bjmonitor-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("the dashboard is not valid JSON: %v", err)
	}
	shown := map[string]bool{}
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			for _, m := range checkExpr(t, "panel "+strconv.Quote(p.Title), q.Expr, have) {
				shown[m] = true
			}
		}
	}
	for _, want := range []string{
		"bjmonitor_fps", "bjmonitor_frames_dropped_total", "bjmonitor_alerts_total",
		"bjmonitor_rounds_total", "bjmonitor_outbox_depth", "bjmonitor_broker_connected",
	} {
		if !shown[want] {
			t.Errorf("no panel shows %s", want)
		}
	}
}

// yamlDocs parses every YAML file under deploy/, each into its
// documents.
func yamlDocs(t *testing.T) map[string][]map[string]any {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("*", "*.y*ml"))
	if err != nil || len(files) < 4 {
		t.Fatalf("YAML files: %v, %v", files, err)
	}
	docs := map[string][]map[string]any{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(strings.NewReader(string(b)))
		for {
			var doc any
			if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Errorf("%s: %v", f, err)
				break
			}
			if m, ok := doc.(map[string]any); ok {
				docs[f] = append(docs[f], m)
			}
		}
	}
	return docs
}

// TestYAML: every YAML file parses.
func TestYAML(t *testing.T) {
	for f, d := range yamlDocs(t) {
		if len(d) == 0 && !strings.HasSuffix(f, "tables.yml") {
			t.Errorf("%s: no document", f)
		}
	}
}

// TestPrometheus: the alerting rules ask for exported metrics, the files
// prometheus.yml names are beside it, and every box has its table label.
func TestPrometheus(t *testing.T) {
	have := exported(t)
	var rules struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
				Expr  string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	decodeFile(t, filepath.Join("prometheus", "bjmonitor-rules.yml"), &rules)
	n := 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			checkExpr(t, "rule "+r.Alert, r.Expr, have)
			n++
		}
	}
	if n == 0 {
		t.Error("no alerting rule read")
	}

	var prom struct {
		RuleFiles     []string `yaml:"rule_files"`
		ScrapeConfigs []struct {
			FileSD []struct {
				Files []string `yaml:"files"`
			} `yaml:"file_sd_configs"`
		} `yaml:"scrape_configs"`
	}
	decodeFile(t, filepath.Join("prometheus", "prometheus.yml"), &prom)
	named := slices.Clone(prom.RuleFiles)
	for _, s := range prom.ScrapeConfigs {
		for _, sd := range s.FileSD {
			named = append(named, sd.Files...)
		}
	}
	for _, f := range named {
		if _, err := os.Stat(filepath.Join("prometheus", f)); err != nil {
			t.Errorf("prometheus.yml names %s, which is not beside it", f)
		}
	}
	var targets []struct {
		Targets []string          `yaml:"targets"`
		Labels  map[string]string `yaml:"labels"`
	}
	decodeFile(t, filepath.Join("prometheus", "tables.yml"), &targets)
	for _, tg := range targets {
		if tg.Labels["table"] == "" || len(tg.Targets) != 1 {
			t.Errorf("tables.yml: %v: want one box and its table label", tg)
		}
	}
}

// TestReplayJob: the replay Job is an Indexed Job running monitor replay,
// with as many completions as recordings listed.
func TestReplayJob(t *testing.T) {
	job := yamlDocs(t)[filepath.Join("replay", "replay-job.yaml")]
	if len(job) != 2 {
		t.Fatalf("replay-job.yaml: %d documents, want the Job and its ConfigMap", len(job))
	}
	var spec struct {
		Kind string `yaml:"kind"`
		Spec struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int    `yaml:"completions"`
			Template       struct {
				Spec struct {
					Containers []struct {
						Args []string `yaml:"args"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	remarshal(t, job[0], &spec)
	if spec.Kind != "Job" || spec.Spec.CompletionMode != "Indexed" || spec.Spec.Completions < 1 ||
		len(spec.Spec.Template.Spec.Containers) != 1 || !strings.Contains(strings.Join(spec.Spec.Template.Spec.Containers[0].Args, " "), "monitor replay") {
		t.Errorf("replay-job.yaml: %+v, want an Indexed Job with completions running monitor replay", spec)
	}
	var cm struct {
		Data map[string]string `yaml:"data"`
	}
	remarshal(t, job[1], &cm)
	if got := len(strings.Fields(cm.Data["files.txt"])); got != spec.Spec.Completions {
		t.Errorf("replay-job.yaml: completions %d, but files.txt lists %d recordings", spec.Spec.Completions, got)
	}
}

func decodeFile(tb testing.TB, path string, v any) {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
}

func remarshal(tb testing.TB, in, out any) {
	tb.Helper()
	b, err := yaml.Marshal(in)
	if err != nil {
		tb.Fatal(err)
	}
	if err := yaml.Unmarshal(b, out); err != nil {
		tb.Fatal(err)
	}
}

// siteBroker runs mosquitto/bjmonitor.conf on a real Mosquitto (its paths
// moved into a temporary folder, its TLS listener on a free port) with
// the users add-table and add-console make. It returns the broker's TLS
// URL, the CA to trust, and each user's password.
func siteBroker(t *testing.T) (url string, ca *x509.CertPool, passwords map[string]string) {
	t.Helper()
	if _, err := os.Stat(mqtttest.MosquittoBin); err != nil {
		t.Skipf("mosquitto not installed (scripts/setup installs it): %v", err)
	}
	dir := t.TempDir()
	certs := testcert.Write(t, dir, "site")
	passwords = map[string]string{}
	for _, cmd := range [][]string{{"add-table", "table-7"}, {"add-table", "table-8"}, {"add-console", "console-1"}, {"add-console", "console-2"}} {
		out, err := exec.Command(filepath.Join("mosquitto", cmd[0]), cmd[1], dir).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(cmd, " "), err, out)
		}
		// "… username NAME  password PW …" or "mqtt.username: NAME  mqtt.password: PW"
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			for i := 0; i+3 < len(f); i++ {
				if strings.HasSuffix(f[i], "username") || strings.HasSuffix(f[i], "username:") {
					passwords[f[i+1]] = f[i+3]
				}
			}
		}
	}
	for _, u := range []string{"table-7", "table-7-controller", "table-8", "console-1", "console-2"} {
		if passwords[u] == "" {
			t.Fatalf("add-table and add-console printed no password for %s: %v", u, passwords)
		}
	}
	conf, err := os.ReadFile(filepath.Join("mosquitto", "bjmonitor.conf"))
	if err != nil {
		t.Fatal(err)
	}
	port := mqtttest.FreePort(t)
	text := strings.NewReplacer(
		"/etc/mosquitto/certs/broker.crt", certs.ServerCert,
		"/etc/mosquitto/certs/broker.key", certs.ServerKey,
		"/etc/mosquitto/", dir+"/",
		"/var/lib/mosquitto/", dir+"/",
		"listener 8883\n", fmt.Sprintf("listener %d 127.0.0.1\n", port),
		"listener 1883 127.0.0.1\n", "", // mqtttest's own plain listener stands in
		"per_listener_settings false\n", "", // before any listener; false is the default
	).Replace(string(conf))
	b := mqtttest.NewMosquitto(t, text)
	b.Start()
	pem, err := os.ReadFile(certs.CA)
	if err != nil {
		t.Fatal(err)
	}
	ca = x509.NewCertPool()
	ca.AppendCertsFromPEM(pem)
	return fmt.Sprintf("ssl://127.0.0.1:%d", port), ca, passwords
}

// client connects as user over TLS and collects what its subscriptions
// receive.
type client struct {
	mqtt.Client
	got chan mqtt.Message
}

func connect(t *testing.T, url string, ca *x509.CertPool, id, user, password string) (*client, error) {
	t.Helper()
	c := &client{got: make(chan mqtt.Message, 1000)}
	opts := mqtt.NewClientOptions().AddBroker(url).SetClientID(id).SetUsername(user).SetPassword(password).
		SetTLSConfig(&tls.Config{RootCAs: ca, ServerName: "127.0.0.1"}).
		SetConnectTimeout(5 * time.Second).SetAutoReconnect(false).
		SetDefaultPublishHandler(func(_ mqtt.Client, m mqtt.Message) { c.got <- m })
	c.Client = mqtt.NewClient(opts)
	tok := c.Connect()
	if !tok.WaitTimeout(10 * time.Second) {
		return nil, fmt.Errorf("connect %s: timed out", user)
	}
	if err := tok.Error(); err != nil {
		return nil, err
	}
	t.Cleanup(func() { c.Disconnect(50) })
	return c, nil
}

func (c *client) sub(t *testing.T, filter string) {
	t.Helper()
	tok := c.Subscribe(filter, 1, func(_ mqtt.Client, m mqtt.Message) { c.got <- m })
	if !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe %s: %v", filter, tok.Error())
	}
}

func (c *client) pub(t *testing.T, topic, payload string) {
	t.Helper()
	tok := c.Publish(topic, 1, false, payload)
	if !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("publish %s: %v", topic, tok.Error())
	}
}

// drain returns the payloads received until quiet passes with none.
func (c *client) drain(quiet time.Duration) []string {
	var out []string
	for {
		select {
		case m := <-c.got:
			out = append(out, m.Topic()+" "+string(m.Payload()))
		case <-time.After(quiet):
			return out
		}
	}
}

// TestBrokerACL: on the site's Mosquitto, a table's monitor publishes only
// its own table's records and reads only its own controller; only the
// controller publishes controller events; consoles read every table and
// publish nothing; a wrong password is refused.
func TestBrokerACL(t *testing.T) {
	url, ca, pw := siteBroker(t)
	must := func(c *client, err error) *client {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	mon7 := must(connect(t, url, ca, "bjmonitor-table-7", "table-7", pw["table-7"]))
	mon8 := must(connect(t, url, ca, "bjmonitor-table-8", "table-8", pw["table-8"]))
	ctl7 := must(connect(t, url, ca, "ctl-table-7", "table-7-controller", pw["table-7-controller"]))
	officer := must(connect(t, url, ca, "console-1", "console-1", pw["console-1"]))

	if _, err := connect(t, url, ca, "intruder", "table-7", "wrong"); err == nil {
		t.Error("table-7 with a wrong password was let in")
	}
	if _, err := connect(t, url, ca, "anonymous", "", ""); err == nil {
		t.Error("a client without a user was let in")
	}

	officer.sub(t, "bjmonitor/+/alert")
	mon7.sub(t, "bjmonitor/table-7/controller")
	mon8.sub(t, "bjmonitor/table-7/controller") // not its table: gets nothing

	mon7.pub(t, "bjmonitor/table-7/alert", "from table-7")
	mon7.pub(t, "bjmonitor/table-8/alert", "table-7 posing as table-8")
	mon8.pub(t, "bjmonitor/table-8/alert", "from table-8")
	officer.pub(t, "bjmonitor/table-7/alert", "an officer posing as table-7")
	ctl7.pub(t, "bjmonitor/table-7/controller", "from the controller")
	mon7.pub(t, "bjmonitor/table-7/controller", "the monitor posing as its controller")
	officer.pub(t, "bjmonitor/table-7/controller", "an officer posing as the controller")

	tests := []struct {
		who  string
		c    *client
		want []string
	}{
		{"console-1 on bjmonitor/+/alert", officer, []string{"bjmonitor/table-7/alert from table-7", "bjmonitor/table-8/alert from table-8"}},
		{"table-7 on its controller topic", mon7, []string{"bjmonitor/table-7/controller from the controller"}},
		{"table-8 on table-7's controller topic", mon8, nil},
	}
	for _, tt := range tests {
		got := tt.c.drain(time.Second)
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s received %q, want %q", tt.who, got, tt.want)
		}
	}
}

// TestSharedSubscription: two consoles in one share group split a
// table's alerts between them, each alert delivered to exactly one.
func TestSharedSubscription(t *testing.T) {
	url, ca, pw := siteBroker(t)
	var consoles []*client
	for _, name := range []string{"console-1", "console-2"} {
		c, err := connect(t, url, ca, name, name, pw[name])
		if err != nil {
			t.Fatal(err)
		}
		c.sub(t, "$share/consoles/bjmonitor/+/alert")
		consoles = append(consoles, c)
	}
	mon, err := connect(t, url, ca, "bjmonitor-table-7", "table-7", pw["table-7"])
	if err != nil {
		t.Fatal(err)
	}
	const n = 20
	for i := range n {
		mon.pub(t, "bjmonitor/table-7/alert", strconv.Itoa(i))
	}
	seen := map[string]int{}
	for i, c := range consoles {
		got := c.drain(time.Second)
		if len(got) == 0 {
			t.Errorf("console-%d received none of the %d alerts: the work is not shared", i+1, n)
		}
		for _, m := range got {
			seen[m]++
		}
	}
	if len(seen) != n {
		t.Errorf("the consoles received %d distinct alerts, want %d", len(seen), n)
	}
	for m, k := range seen {
		if k != 1 {
			t.Errorf("%q delivered %d times, want once", m, k)
		}
	}
}
