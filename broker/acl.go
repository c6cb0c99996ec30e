package broker

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"strings"

	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"
	"golang.org/x/crypto/bcrypt"
)

// Role is what a user may do on the table's topics.
type Role string

// Roles, each bound to <prefix>/<table>/… (Config.TopicPrefix and Table).
const (
	// RoleMonitor publishes the results (round, outcome, alert, stats,
	// available) and reads the controller's events.
	RoleMonitor Role = "monitor"
	// RoleController publishes on controller only, and reads nothing: it
	// alone speaks for the dealer.
	RoleController Role = "controller"
	// RoleConsole reads everything under the prefix (shared
	// subscriptions included) and publishes nothing.
	RoleConsole Role = "console"
)

// User is one login of the embedded broker.
type User struct {
	Name string
	// PasswordHash is the password's bcrypt hash ($2a$, $2b$ or $2y$, as
	// htpasswd -B makes it); the password itself is never stored.
	PasswordHash string
	Role         Role
}

// Check reports what is wrong with u, naming the field.
func (u User) Check() error {
	if u.Name == "" {
		return &UserError{"name", u.Name, "empty"}
	}
	switch u.Role {
	case RoleMonitor, RoleController, RoleConsole:
	default:
		return &UserError{"role", string(u.Role), `want "monitor", "controller" or "console"`}
	}
	if _, err := bcrypt.Cost([]byte(u.PasswordHash)); err != nil {
		return &UserError{"password_hash", "(hidden)", fmt.Sprintf("not a bcrypt hash (%v); make one with: htpasswd -nbBC 10 \"\" 'PASSWORD' | tr -d ':\\n'", err)}
	}
	return nil
}

// UserError names the field of a User that is wrong.
type UserError struct {
	Field, Value, Reason string
}

func (e *UserError) Error() string {
	return fmt.Sprintf("broker: user %s = %s: %s", e.Field, e.Value, e.Reason)
}

// internalUser is the login the monitor's own publisher uses (Login): its
// password is made at Start and lives in memory only.
const internalUser = "bjmonitor-embedded"

// login is a user as the auth hook holds it.
type login struct {
	hash     []byte // bcrypt; nil for the internal user
	password []byte // the internal user's, compared in constant time
	role     Role
}

// authHook lets clients in by user name and password, or everyone when no
// users are configured (loopback only, see Start), and holds each user to
// its role's topics.
type authHook struct {
	mqtt.HookBase
	users map[string]login // nil: anyone may do anything
	base  string           // <prefix>/<table>/
	// prefix is <prefix>/, under which consoles read.
	prefix string
	// dummy is hashed against when the user is unknown, so that the reply
	// time does not tell which user names exist.
	dummy []byte
}

func newAuthHook(cfg Config) (*authHook, string, error) {
	h := &authHook{base: cfg.TopicPrefix + "/" + cfg.Table + "/", prefix: cfg.TopicPrefix + "/"}
	secret := make([]byte, 24)
	if _, err := rand.Read(secret); err != nil {
		return nil, "", err
	}
	password := hex.EncodeToString(secret)
	if len(cfg.Users) == 0 {
		return h, password, nil
	}
	h.users = map[string]login{internalUser: {password: []byte(password), role: RoleMonitor}}
	for i, u := range cfg.Users {
		if err := u.Check(); err != nil {
			return nil, "", fmt.Errorf("broker: users[%d]: %w", i, err)
		}
		if _, dup := h.users[u.Name]; dup {
			return nil, "", fmt.Errorf("broker: users[%d]: %w", i, &UserError{"name", u.Name, "given twice, or the monitor's own login"})
		}
		h.users[u.Name] = login{hash: []byte(u.PasswordHash), role: u.Role}
		h.dummy = []byte(u.PasswordHash)
	}
	return h, password, nil
}

func (h *authHook) ID() string { return "bjmonitor-auth" }

func (h *authHook) Provides(b byte) bool {
	return b == mqtt.OnConnectAuthenticate || b == mqtt.OnACLCheck
}

func (h *authHook) OnConnectAuthenticate(cl *mqtt.Client, pk packets.Packet) bool {
	if h.users == nil {
		return true
	}
	name := string(pk.Connect.Username)
	u, ok := h.users[name]
	var match bool
	switch {
	case !ok:
		_ = bcrypt.CompareHashAndPassword(h.dummy, pk.Connect.Password)
	case u.hash == nil:
		match = subtle.ConstantTimeCompare(u.password, pk.Connect.Password) == 1
	default:
		match = bcrypt.CompareHashAndPassword(u.hash, pk.Connect.Password) == nil
	}
	if !match {
		h.Log.Warn("refused a client: bad user name or password", "client", cl.ID, "user", name, "remote", cl.Net.Remote)
		return false
	}
	// mochi does not hold a will to the ACL: a console must not leave an
	// alert behind as its will.
	if pk.Connect.WillFlag && !h.allowed(u.role, pk.Connect.WillTopic, true) {
		h.Log.Warn("refused a client: its will is on a topic its role may not publish on", "client", cl.ID, "user", name, "role", u.role, "topic", pk.Connect.WillTopic)
		return false
	}
	return true
}

// OnACLCheck is asked for each publish (write), each subscription filter
// and each message about to be delivered (read).
func (h *authHook) OnACLCheck(cl *mqtt.Client, topic string, write bool) bool {
	if h.users == nil {
		return true
	}
	u, ok := h.users[string(cl.Properties.Username)]
	if !ok {
		return false
	}
	if h.allowed(u.role, topic, write) {
		return true
	}
	verb := "read"
	if write {
		verb = "publish on"
	}
	h.Log.Warn("refused: "+verb+" a topic outside the user's role", "client", cl.ID, "user", string(cl.Properties.Username), "role", u.role, "topic", topic)
	return false
}

// allowed is the ACL: what each role may publish on (write) or read
// (a topic or a subscription filter).
func (h *authHook) allowed(role Role, topic string, write bool) bool {
	switch role {
	case RoleMonitor:
		kind, ok := strings.CutPrefix(topic, h.base)
		if write {
			switch kind {
			case "round", "outcome", "alert", "stats", "available":
				return ok
			}
			return false
		}
		return ok && kind == "controller"
	case RoleController:
		return write && topic == h.base+"controller"
	case RoleConsole:
		if write {
			return false
		}
		return within(unshare(topic), h.prefix)
	}
	return false
}

// unshare strips a shared subscription's $share/<group>/ from a filter.
func unshare(filter string) string {
	if rest, ok := strings.CutPrefix(filter, "$share/"); ok {
		if _, f, ok := strings.Cut(rest, "/"); ok {
			return f
		}
	}
	return filter
}

// within reports whether every topic filter f can match lies under
// prefix (which ends in /): f must spell out the prefix's levels, not
// match them with + or #.
func within(f, prefix string) bool {
	return strings.HasPrefix(f, prefix) && len(f) > len(prefix)
}
