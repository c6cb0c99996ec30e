package main

import (
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"bjmonitor/evidence/ship"
	"bjmonitor/internal/mqtttest"
	"bjmonitor/internal/pgtest"
)

// sharedStream is what the tables publish in TestConsoleInstancesShare:
// sharedTables tables, sharedRounds rounds each; every round a round, two
// outcomes, an alert and its snapshot.
const (
	sharedTables = 4
	sharedRounds = 30
	perRound     = 5 // messages of a round, all shared among the group
)

// sharedConsole is one instance of a shared group in the test.
type sharedConsole struct {
	config, url string
	stop        func()
}

// TestConsoleInstancesShare: two console instances on one PostgreSQL and
// one shared subscription store each record once, lose none when one
// stops halfway through the traffic, and show the same alerts and the
// same audit trail.
func TestConsoleInstancesShare(t *testing.T) {
	broker := mqtttest.NewMosquitto(t, "")
	broker.Start()
	database := pgtest.Start(t).NewDatabase(t)
	db, err := sql.Open("pgx", database)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a := newSharedConsole(t, broker.URL(), database, "a")
	b := newSharedConsole(t, broker.URL(), database, "b")
	addConsoleUsers(t, a.config)
	a.start(t)
	b.start(t)
	waitRows(t, db, "both instances subscribed", `SELECT COUNT(*) FROM console_instances`, 2)

	// Halfway through the traffic, a stops (and hands its share over).
	halfway := make(chan struct{})
	published := make(chan error, 1)
	go func() { published <- publishSharedStream(broker.URL(), halfway) }()
	<-halfway
	storedByA, _ := messageCounts(t, loggedIn(t, a.url, "ana"), a.url)
	a.stop()
	if err := <-published; err != nil {
		t.Fatal(err)
	}
	n := sharedTables * sharedRounds
	for what, query := range map[string]string{"alerts": `SELECT COUNT(*) FROM alerts`, "rounds": `SELECT COUNT(*) FROM rounds`,
		"outcomes": `SELECT COUNT(*) FROM outcomes`, "snapshots": `SELECT COUNT(*) FROM evidence`} {
		want := n
		if what == "outcomes" {
			want = 2 * n
		}
		waitRows(t, db, "every one of the "+what+", with a stopped for good", query, want)
	}
	officerB := loggedIn(t, b.url, "ana")
	storedByB, dupB := messageCounts(t, officerB, b.url)
	if storedByA == 0 || storedByB == 0 {
		t.Errorf("stored by a before it stopped: %d, by b: %d; want both to have done some of the work", storedByA, storedByB)
	}
	if dupB != 0 {
		t.Errorf("b received %d records it had already stored", dupB)
	}

	// a comes back: its session holds nothing more, and both pages show
	// the same alerts; an alert resolved through one is resolved through
	// the other, with one trail.
	a.start(t)
	officerA := loggedIn(t, a.url, "ana")
	id := "t2:1015:3:21+3:overpaid"
	resolveAlert(t, officerA, a.url, id, "confirmed_error", "paid 45 on a lose")
	csvA, csvB := get(t, officerA, a.url+"/alerts.csv"), get(t, officerB, b.url+"/alerts.csv")
	if csvA != csvB {
		t.Errorf("the two instances export different alerts:\na:\n%s\nb:\n%s", csvA, csvB)
	}
	if rows := strings.Count(csvB, "\n"); rows != n+1 {
		t.Errorf("the export has %d lines, want a header and %d alerts", rows, n)
	}
	page := get(t, officerB, b.url+"/alert?id="+url.QueryEscape(id))
	if !strings.Contains(page, "ana</span> resolved: <strong>confirmed error</strong>") || strings.Count(page, "ana</span> resolved") != 1 {
		t.Errorf("b's page of the alert resolved through a lacks the one line of trail")
	}
	if stored, dup := messageCounts(t, officerA, a.url); stored != 0 || dup != 0 {
		t.Errorf("a, back, found %d records and %d duplicates left in its session, want none", stored, dup)
	}

	// The last instance to stop keeps its subscription: what is published
	// while the whole group is down waits for it.
	b.stop()
	a.stop()
	late := `{"type":"alert","id":"t1:2000:1:21+3:overpaid","table":"t1","round":"2000","seat":1,"bet":"21+3","kind":"overpaid","severity":"mismatch","expected":0,"entered":45}`
	mqtttest.Publish(t, broker.URL(), "bjmonitor/t1/alert", late)
	a.start(t)
	waitRows(t, db, "the alert published while the group was down", `SELECT COUNT(*) FROM alerts`, n+1)
}

func newSharedConsole(t *testing.T, broker, database, name string) *sharedConsole {
	t.Helper()
	port := mqtttest.FreePort(t)
	config := filepath.Join(t.TempDir(), "console.yaml")
	text := fmt.Sprintf("mqtt:\n  broker: %s\nconsole:\n  listen: 127.0.0.1:%d\n  database: %s\n  topic_prefix: bjmonitor\n  client_id: console-%s\n  shared_group: room\n",
		broker, port, database, name)
	if err := os.WriteFile(config, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return &sharedConsole{config: config, url: fmt.Sprintf("http://127.0.0.1:%d", port)}
}

func (s *sharedConsole) start(t *testing.T) {
	t.Helper()
	s.stop = runTestConsole(t, s.config, s.url, http.DefaultClient)
}

// publishSharedStream publishes the tables' traffic as the monitors do
// (QoS 1), a few rounds a second, and closes halfway at half of it.
func publishSharedStream(broker string, halfway chan<- struct{}) error {
	c := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(broker).SetClientID("tables"))
	if tok := c.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		return fmt.Errorf("tables' client: %v", tok.Error())
	}
	defer c.Disconnect(250)
	for r := range sharedRounds {
		if r == sharedRounds/2 {
			close(halfway)
		}
		for tb := 1; tb <= sharedTables; tb++ {
			table, round := fmt.Sprintf("t%d", tb), strconv.Itoa(1000+r)
			id := table + ":" + round + ":3:21+3:overpaid"
			snapshot, err := ship.Encode(ship.Header{Alert: id, File: "snapshot", ContentType: "image/jpeg"}, []byte("\xff\xd8\xff\xe0 snapshot of "+id))
			if err != nil {
				return err
			}
			msgs := []struct {
				kind    string
				payload any
			}{
				{"round", fmt.Sprintf(`{"type":"round","table":%q,"round":%q,"dealer":[{"card":"TD","confidence":0.97}],"seats":[{"seat":3,"hands":[{"cards":[{"card":"7S","confidence":0.93},{"card":"4D","confidence":0.97}],"split_from":-1,"total":11}]}]}`, table, round)},
				{"outcome", fmt.Sprintf(`{"type":"outcome","table":%q,"round":%q,"seat":3,"bet":"21+3","wager":5,"result":"lose","pays":0,"win":0,"cards":["7S","4D","TD"]}`, table, round)},
				{"outcome", fmt.Sprintf(`{"type":"outcome","table":%q,"round":%q,"seat":3,"bet":"blazing7s","wager":1,"result":"lose","pays":0,"win":0,"cards":["7S","4D","TD"]}`, table, round)},
				{"alert", fmt.Sprintf(`{"type":"alert","id":%q,"table":%q,"round":%q,"seat":3,"bet":"21+3","kind":"overpaid","severity":"mismatch","expected":0,"entered":45,"cards":[{"card":"7S","confidence":0.93},{"card":"4D","confidence":0.97},{"card":"TD","confidence":0.97}]}`, id, table, round)},
				{"evidence", snapshot},
			}
			for _, m := range msgs {
				if tok := c.Publish("bjmonitor/"+table+"/"+m.kind, 1, false, m.payload); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
					return fmt.Errorf("publishing %s %s: %v", table, m.kind, tok.Error())
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return nil
}

// waitRows waits up to 60 s for query to count want rows, and fails the
// test if it counts more, or never gets there.
func waitRows(t *testing.T, db *sql.DB, what, query string, want int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var n int
		if err := db.QueryRow(query).Scan(&n); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		if n == want {
			return
		}
		if n > want || time.Now().After(deadline) {
			t.Fatalf("%s: %s counts %d, want %d", what, query, n, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// messageCounts are what an instance's tables page says became of the
// messages it received: stored and duplicates (none yet: 0 and 0).
func messageCounts(t *testing.T, c *http.Client, u string) (stored, duplicates int) {
	t.Helper()
	page := get(t, c, u+"/")
	if !strings.Contains(page, "Messages:") {
		return 0, 0
	}
	m := regexp.MustCompile(`Messages: (\d+) stored, (\d+) duplicates`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("%s's tables page counts messages in a way the test cannot read", u)
	}
	stored, _ = strconv.Atoi(m[1])
	duplicates, _ = strconv.Atoi(m[2])
	return stored, duplicates
}

func get(t *testing.T, c *http.Client, u string) string {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d, %v", u, resp.StatusCode, err)
	}
	return string(body)
}

// resolveAlert resolves alert id through the console at u as c's officer.
func resolveAlert(t *testing.T, c *http.Client, u, id, resolution, note string) {
	t.Helper()
	page := get(t, c, u+"/alert?id="+url.QueryEscape(id))
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if csrf == nil {
		t.Fatalf("no resolve form on %s's page of %s", u, id)
	}
	resp, err := c.PostForm(u+"/alert", url.Values{"csrf": {csrf[1]}, "id": {id}, "action": {"resolve"}, "resolution": {resolution}, "note": {note}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("resolving %s through %s: %s", id, u, resp.Status)
	}
}
