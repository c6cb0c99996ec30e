package broker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	"golang.org/x/crypto/bcrypt"

	"bjmonitor/publish"
)

// hash is a bcrypt hash of password, at the lowest cost so tests stay quick.
func hash(tb testing.TB, password string) string {
	tb.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		tb.Fatal(err)
	}
	return string(h)
}

// client connects a paho client as user; it does not reconnect, so a
// connection the broker drops stays dropped.
func client(tb testing.TB, url, user, password string, tune func(*paho.ClientOptions)) (paho.Client, error) {
	tb.Helper()
	opts := paho.NewClientOptions().AddBroker(url).SetClientID(fmt.Sprintf("%s-%d", user, time.Now().UnixNano())).
		SetUsername(user).SetPassword(password).SetConnectTimeout(2 * time.Second).SetAutoReconnect(false).
		SetProtocolVersion(4)
	if tune != nil {
		tune(opts)
	}
	c := paho.NewClient(opts)
	tok := c.Connect()
	if !tok.WaitTimeout(5 * time.Second) {
		return nil, errors.New("connect: no answer")
	}
	if err := tok.Error(); err != nil {
		return nil, err
	}
	tb.Cleanup(func() { c.Disconnect(0) })
	return c, nil
}

// TestRoles runs the embedded broker with a controller, a console and the
// monitor's own login: anonymous clients and bad passwords are refused,
// the controller's events reach the monitor, the monitor's alerts reach
// the console, and neither the controller nor the console can publish
// where its role does not allow.
func TestRoles(t *testing.T) {
	b, logs := start(t, Config{TopicPrefix: "test", Table: "t1", Users: []User{
		{Name: "dealer-ctl", PasswordHash: hash(t, "ctl-pw"), Role: RoleController},
		{Name: "officer", PasswordHash: hash(t, "console-pw"), Role: RoleConsole},
	}})
	url := b.URL()
	for _, tc := range []struct{ name, user, pass string }{
		{"anonymous", "", ""},
		{"wrong password", "officer", "ctl-pw"},
		{"unknown user", "ghost", "x"},
		{"the monitor's login guessed", internalUser, "0000"},
	} {
		if _, err := client(t, url, tc.user, tc.pass, nil); err == nil {
			t.Errorf("%s: connected, want refused", tc.name)
		}
	}

	events := make(chan string, 10)
	pc := publisherConfig(t, url)
	pc.Username, pc.Password = b.Login()
	pc.Handlers = map[string]func(publish.Message){publish.KindController: func(m publish.Message) { events <- string(m.Payload) }}
	mon, err := publish.New(pc)
	if err != nil {
		t.Fatalf("the monitor's publisher with Login(): %v", err)
	}
	defer mon.Close()

	console, err := client(t, url, "officer", "console-pw", nil)
	if err != nil {
		t.Fatalf("console: %v", err)
	}
	seen := make(chan message, 10)
	if tok := console.Subscribe("$share/room/test/+/alert", 1, func(_ paho.Client, m paho.Message) {
		seen <- message{m.Topic(), string(m.Payload()), m.Retained()}
	}); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil || tok.(*paho.SubscribeToken).Result()["$share/room/test/+/alert"] >= 0x80 {
		t.Fatalf("console's shared subscription refused: %v %v", tok.Error(), tok.(*paho.SubscribeToken).Result())
	}
	tok := console.Subscribe("#", 1, nil)
	if !tok.WaitTimeout(5*time.Second) || tok.(*paho.SubscribeToken).Result()["#"] < 0x80 {
		t.Error("console may subscribe to #, beyond the prefix")
	}

	ctl, err := client(t, url, "dealer-ctl", "ctl-pw", nil)
	if err != nil {
		t.Fatalf("controller: %v", err)
	}
	ctl.Publish("test/t1/controller", 1, false, `{"type":"game_start","round":"1"}`).WaitTimeout(5 * time.Second)
	select {
	case e := <-events:
		t.Logf("the controller's event reached the monitor: %s", e)
	case <-time.After(5 * time.Second):
		t.Error("the controller's event did not reach the monitor")
	}
	if err := mon.Publish(context.Background(), publish.KindAlert, []byte(`{"id":"real"}`)); err != nil {
		t.Fatal(err)
	}
	if m := next(t, seen); m.payload != `{"id":"real"}` {
		t.Errorf("console got %q, want the monitor's alert", m.payload)
	}

	// Forgeries: each is refused and the offender disconnected (MQTT
	// 3.1.1 has no other way to refuse a QoS 1 publish).
	ctl.Publish("test/t1/alert", 1, false, `{"id":"forged-by-controller"}`).WaitTimeout(2 * time.Second)
	console.Publish("test/t1/controller", 1, false, `{"type":"game_end","round":"1"}`).WaitTimeout(2 * time.Second)
	console2, err := client(t, url, "officer", "console-pw", nil)
	if err != nil {
		t.Fatal(err)
	}
	console2.Publish("test/t1/alert", 1, false, `{"id":"forged-by-console"}`).WaitTimeout(2 * time.Second)
	select {
	case m := <-seen:
		t.Errorf("a forged alert reached the console: %s", m.payload)
	case e := <-events:
		t.Errorf("a forged controller event reached the monitor: %s", e)
	case <-time.After(time.Second):
	}
	if ctl.IsConnectionOpen() {
		t.Error("the controller is still connected after publishing an alert")
	}
	if _, err := client(t, url, "dealer-ctl", "ctl-pw", func(o *paho.ClientOptions) {
		o.SetWill("test/t1/alert", `{"id":"forged-will"}`, 1, false)
	}); err == nil {
		t.Error("a controller with its will on the alert topic was let in")
	}
	for _, want := range []string{"bad user name or password", "outside the user's role", "its will"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q", want)
		}
	}
}

// TestNoUsersLoopbackOnly: without users the broker refuses to listen
// beyond loopback; bad users are refused, naming the field.
func TestNoUsersLoopbackOnly(t *testing.T) {
	if _, err := Start(context.Background(), Config{Addr: ":0"}, nil); !errors.Is(err, ErrOpenToNetwork) {
		t.Errorf("Start on :0 without users: %v, want ErrOpenToNetwork", err)
	}
	users := []User{{Name: "a", PasswordHash: hash(t, "x"), Role: RoleConsole}}
	if _, err := Start(context.Background(), Config{Addr: "127.0.0.1:0", Users: users}, nil); err == nil || !strings.Contains(err.Error(), "table id") {
		t.Errorf("Start with users and no table: %v, want an error saying the table id is needed", err)
	}
	for _, tc := range []struct {
		u     User
		field string
	}{
		{User{Name: "", PasswordHash: hash(t, "x"), Role: RoleConsole}, "name"},
		{User{Name: "a", PasswordHash: "plain", Role: RoleConsole}, "password_hash"},
		{User{Name: "a", PasswordHash: hash(t, "x"), Role: "admin"}, "role"},
		{User{Name: internalUser, PasswordHash: hash(t, "x"), Role: RoleConsole}, "name"},
	} {
		_, err := Start(context.Background(), Config{Addr: "127.0.0.1:0", Table: "t1", Users: []User{tc.u}}, nil)
		var ue *UserError
		if !errors.As(err, &ue) || ue.Field != tc.field {
			t.Errorf("Start with user %+v: %v, want a UserError on %s", tc.u, err, tc.field)
		}
	}
}
