package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"bjmonitor/internal/mqtttest"
)

var updateScreenshot = flag.Bool("update-screenshot", false, "rewrite docs/console.png, the README's screenshot of the console, from the browser test")

// chromium finds Debian's chromium (scripts/setup installs it).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed (scripts/setup installs it): the console's browser test needs it")
	return ""
}

// TestConsoleInBrowser drives the console in a real browser while a
// replay of the bundled sample publishes its results, with evidence:
// an officer logs in, sees every alert of the sample arrive without a
// reload, opens one, sees its snapshot and plays its clip, resolves it,
// reloads and finds it resolved with their name in the trail; a viewer
// cannot resolve it. The numbers are the steps.
func TestConsoleInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("replays video in a browser")
	}
	exe := chromium(t)
	b := mqtttest.NewMosquitto(t, "")
	b.Start()
	// 1. The console watches the prefix replays publish under.
	br := &browser{t: t, u: startConsole(t, b.URL(), "bjmonitor-replay")}
	br.start(exe)
	// 3. The officer logs in and watches the live feed; the marker shows
	// the page is never reloaded.
	br.login("ana")
	br.poll("the feed connects", `document.getElementById("live").textContent === "live"`, 20*time.Second)
	evaluate[bool](t, br.ctx, `window.neverReloaded = true`)
	// 2. The sample is replayed with --publish and its evidence.
	want := replayToConsole(t, b.URL())
	// 4. Every alert arrives in the feed, without a reload.
	br.feedShows(want)
	waitEvidence(t, br.u, want) // the clips follow their alerts
	// A card whose corners were read as two cards shows in the feed as
	// either, as on the alert's page.
	br.feedShowsCandidates(b.URL(), strings.SplitN(want[0], ":", 2)[0])
	if *updateScreenshot {
		br.screenshot(filepath.Join("..", "..", "docs", "console.png"))
	}
	// 5. The officer opens an alert, sees its snapshot and plays its clip.
	id := want[0]
	br.openAndPlay(id)
	// 6. The officer resolves it; 7. after a reload it is resolved, with
	// the officer's name in the trail.
	br.resolve(id)
	// 8. A viewer sees the alert but cannot resolve it, by the page or by
	// posting the form themselves.
	br.viewerCannotResolve(id)
}

// browser is chromium, headless, driven through chromedp, on the console
// at u.
type browser struct {
	t   *testing.T
	u   string
	ctx context.Context
}

// start runs chromium until the test ends.
func (br *browser) start(exe string) {
	t := br.t
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.Headless,
		chromedp.WindowSize(1400, 1000), chromedp.Flag("autoplay-policy", "no-user-gesture-required"))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(cancelBrowser)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	br.ctx = ctx
}

// do runs a step's actions, within a minute; on failure it shows the page.
func (br *browser) do(step string, steps ...chromedp.Action[chromedp.Void]) {
	br.t.Helper()
	sctx, cancel := context.WithTimeout(br.ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(sctx, steps...); err != nil {
		page, _ := chromedp.Run(br.ctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`))
		br.t.Fatalf("%s: %v; the page:\n%s", step, err, page)
	}
}

func (br *browser) poll(step, expr string, d time.Duration) {
	br.t.Helper()
	br.do(step, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(d)))
}

func (br *browser) login(name string) {
	br.t.Helper()
	br.do("open the console", chromedp.Navigate(br.u+"/"), chromedp.WaitVisible(chromedp.ID("name")))
	br.do("fill the login form as "+name, chromedp.SendKeys(chromedp.ID("name"), name), chromedp.SendKeys(chromedp.ID("password"), "correct horse"))
	br.do("log in as "+name, chromedp.Click(chromedp.ID("login")), chromedp.WaitVisible(chromedp.ID("user")))
}

// replayToConsole replays the bundled sample with --publish --evidence to
// broker and returns the ids of its alerts, sorted.
func replayToConsole(t *testing.T, broker string) []string {
	t.Helper()
	state := t.TempDir()
	t.Setenv("MONITOR_MQTT_OUTBOX", filepath.Join(state, "outbox"))
	t.Setenv("MONITOR_EVIDENCE_DIR", filepath.Join(state, "evidence"))
	out := filepath.Join(state, "results.jsonl")
	const name = "freebet-1080p"
	args := []string{"replay", abs(t, sample(name, "mp4")), "--events", abs(t, sample(name, "events.jsonl")),
		"--config", abs(t, sample(name, "yaml")), "--out", out, "--publish", "--evidence", "--quiet", "--broker", broker, "--publish-wait", "60s"}
	wd, _ := os.Getwd()
	if err := os.Chdir(filepath.Join("..", "..")); err != nil { // the model's path is the repository's
		t.Fatal(err)
	}
	var stdout, stderr syncBuffer
	err := <-runAsync(context.Background(), &stdout, &stderr, args...)
	os.Chdir(wd)
	if err != nil {
		t.Fatalf("replay --publish: %v\n%s", err, stderr.String())
	}
	want := alertIDs(t, out)
	if len(want) == 0 {
		t.Fatal("the sample's replay raised no alert")
	}
	return want
}

// feedShows waits until the live feed shows exactly the alerts of want,
// on a page that was never reloaded.
func (br *browser) feedShows(want []string) {
	t := br.t
	pctx, cancel := context.WithTimeout(br.ctx, time.Minute)
	_, err := chromedp.Run(pctx, chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelectorAll("#feed tbody tr.alert").length >= %d`, len(want)), chromedp.WithPollingTimeout(time.Minute)))
	cancel()
	got := evaluate[[]string](t, br.ctx, `Array.from(document.querySelectorAll("#feed tbody tr.alert")).map(r => r.dataset.id)`)
	sort.Strings(got)
	if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("the feed shows %d alerts %v (%v), want the replay's %d: %v", len(got), got, err, len(want), want)
	}
	if !evaluate[bool](t, br.ctx, `window.neverReloaded === true`) {
		t.Fatal("the page was reloaded while the alerts arrived")
	}
}

// screenshot writes the page, reloaded, as a PNG.
func (br *browser) screenshot(path string) {
	br.do("screenshot", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("feed")), chromedp.Sleep(500*time.Millisecond))
	png, err := chromedp.Run(br.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		br.t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		br.t.Fatal(err)
	}
}

// feedShowsCandidates publishes, as a monitor of table would, an alert
// resting on a card read as 4D or 4H, and waits until the live feed
// shows that card with its candidates.
func (br *browser) feedShowsCandidates(broker, table string) {
	br.t.Helper()
	id := table + ":9001:3:21+3:overpaid"
	mqtttest.Publish(br.t, broker, "bjmonitor-replay/"+table+"/alert", fmt.Sprintf(`{"type":"alert","id":%q,"table":%q,"round":"9001","seat":3,"bet":"21+3","kind":"overpaid","severity":"review","expected":0,"entered":45,"result":"lose",`+
		`"cards":[{"card":"7S","confidence":0.93},{"card":"4D","confidence":0.7,"candidates":["4D","4H"]},{"card":"KH","confidence":0.91}],"detail":"seat 3 21+3: paid $45.00, but lose pays $0.00"}`, id, table))
	br.poll("the feed shows a card's candidates", fmt.Sprintf(`((document.querySelector('#feed tr[data-id=%q] td.cards') || {}).innerText || "").includes("4D 70%% (4D or 4H)")`, id), 20*time.Second)
}

// openAndPlay opens an alert from the feed, checks its snapshot shows and
// plays its clip.
func (br *browser) openAndPlay(id string) {
	t := br.t
	br.do("open an alert from the feed", chromedp.Click(chromedp.CSS(fmt.Sprintf(`#feed tr[data-id=%q] td a`, id))),
		chromedp.WaitVisible(chromedp.ID("snapshot")))
	br.poll("the snapshot loads", `document.getElementById("snapshot").complete`, 10*time.Second)
	if w := evaluate[int](t, br.ctx, `document.getElementById("snapshot").naturalWidth`); w < 100 {
		t.Errorf("the snapshot is %d px wide: not shown", w)
	}
	played := evaluate[string](t, br.ctx, `(async () => {
		const v = document.getElementById("clip");
		v.muted = true;
		try { await v.play(); } catch (e) { return "play failed: " + e + " " + (v.error && v.error.message); }
		await new Promise(r => setTimeout(r, 1500));
		return v.error ? "error " + v.error.code : "played " + v.currentTime.toFixed(1) + " of " + v.duration.toFixed(1) + " s, " + v.videoWidth + " px";
	})()`, chromedp.EvalAwaitPromise)
	if !strings.HasPrefix(played, "played") || strings.HasPrefix(played, "played 0.0") {
		t.Errorf("the clip: %s, want it playing", played)
	}
	t.Logf("the clip %s", played)
}

// resolve resolves the open alert's page as a confirmed error, reloads,
// and checks the status and the trail.
func (br *browser) resolve(id string) {
	evaluate[bool](br.t, br.ctx, `window.beforeSubmit = true`)
	br.do("resolve", chromedp.Click(chromedp.CSS(`input[name=resolution][value=confirmed_error]`)),
		chromedp.SendKeys(chromedp.ID("note"), "paid on a losing hand; pit boss told"),
		chromedp.Click(chromedp.ID("resolve-button")))
	br.newPage(`document.readyState === "complete" && document.getElementById("trail").textContent.includes("resolved")`)
	br.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("trail")))
	status, trail := textOf(br.t, br.ctx, "status"), textOf(br.t, br.ctx, "trail")
	if status != "confirmed error" || !strings.Contains(trail, "ana") || !strings.Contains(trail, "pit boss told") {
		br.t.Errorf("alert %s after reloading: status %q, trail %q; want confirmed error, by ana, with the note", id, status, trail)
	}
}

// newPage waits until the page marked with window.beforeSubmit has been
// replaced by one where cond holds. It asks again and again, since a
// script evaluated while the browser navigates fails.
func (br *browser) newPage(cond string) {
	br.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ectx, cancel := context.WithTimeout(br.ctx, 5*time.Second)
		ok, err := chromedp.Run(ectx, chromedp.Evaluate[bool](`window.beforeSubmit === undefined && (`+cond+`)`))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			br.t.Fatalf("no new page where %s within 30 s (%v)", cond, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// viewerCannotResolve logs in as the viewer: the alert's page has no
// resolve form, and posting one is refused.
func (br *browser) viewerCannotResolve(id string) {
	t := br.t
	br.do("log out", chromedp.Click(chromedp.CSS(`form.who button`)), chromedp.WaitVisible(chromedp.ID("name")))
	br.login("vic")
	br.do("the viewer's alert page", chromedp.Navigate(br.u+"/alert?id="+urlQuery(id)), chromedp.WaitVisible(chromedp.ID("readonly")))
	forms := evaluate[int](t, br.ctx, `document.querySelectorAll("#resolve").length`)
	posted := evaluate[int](t, br.ctx, fmt.Sprintf(`(async () => {
		const body = new URLSearchParams({csrf: document.querySelector("form.who input[name=csrf]").value, id: %q, action: "resolve", resolution: "false_alarm"});
		return (await fetch("/alert", {method: "POST", body})).status;
	})()`, id), chromedp.EvalAwaitPromise)
	if forms != 0 || posted != 403 {
		t.Errorf("a viewer: %d resolve forms, posting one answered %d; want none and 403", forms, posted)
	}
	br.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("status")))
	if status := textOf(t, br.ctx, "status"); status != "confirmed error" {
		t.Errorf("after the viewer's attempt the status is %q", status)
	}
}

// evaluate runs a script in the page and returns its value.
func evaluate[T any](t *testing.T, ctx context.Context, script string, opts ...chromedp.EvaluateOption) T {
	t.Helper()
	ectx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ectx, chromedp.Evaluate[T](script, opts...))
	if err != nil {
		t.Fatalf("evaluating %s: %v", script, err)
	}
	return v
}

// textOf is the visible text of the element of id.
func textOf(t *testing.T, ctx context.Context, id string) string {
	t.Helper()
	ectx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ectx, chromedp.Text(chromedp.ID(id)))
	if err != nil {
		t.Fatalf("the text of #%s: %v", id, err)
	}
	return strings.TrimSpace(v)
}

// alertIDs reads the ids of the alerts in a replay's results, sorted.
func alertIDs(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ids []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct{ Type, ID string }
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Type == "alert" {
			ids = append(ids, r.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

// waitEvidence waits until the console's database has every alert's
// snapshot and clip, by the alert pages an officer sees.
func waitEvidence(t *testing.T, u string, ids []string) {
	t.Helper()
	c := loggedIn(t, u, "ana")
	deadline := time.Now().Add(30 * time.Second)
	for _, id := range ids {
		for {
			resp, err := c.Get(u + "/alert?id=" + urlQuery(id))
			if err != nil {
				t.Fatal(err)
			}
			var page strings.Builder
			bufio.NewReader(resp.Body).WriteTo(&page)
			resp.Body.Close()
			if strings.Contains(page.String(), `id="snapshot"`) && strings.Contains(page.String(), `id="clip"`) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("alert %s: its snapshot and clip did not reach the console within 30 s", id)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}
