package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"bjmonitor/console/ingest"
	"bjmonitor/console/store"
	"bjmonitor/console/web"
	"bjmonitor/sdnotify"
)

// ConsoleConfig is the surveillance room's console (monitor console).
type ConsoleConfig struct {
	// Listen is where the web page is served.
	Listen string `mapstructure:"listen"`
	// Database is a SQLite file (a relative path is taken from the
	// configuration file's folder) or a postgres:// URL.
	Database string `mapstructure:"database"`
	// TopicPrefix is the tables' prefix the console watches; empty takes
	// mqtt.topic_prefix. Set it to mqtt.replay_prefix for a console that
	// watches replays (an investigation, a test), never live tables.
	TopicPrefix string `mapstructure:"topic_prefix"`
	// ClientID is fixed, so the broker keeps the console's messages while
	// it is away; empty: bjmonitor-console-<host name>.
	ClientID string `mapstructure:"client_id"`
	// SharedGroup, when set, shares the records with the other consoles
	// of the group ($share/<group>/…); they share one PostgreSQL database.
	SharedGroup string `mapstructure:"shared_group"`
	// Tables, when given, are the tables watched; messages of others are
	// counted and skipped. Empty: every table under the prefix.
	Tables []string `mapstructure:"tables"`
	// SessionTTL is how long a login lasts.
	SessionTTL time.Duration `mapstructure:"session_ttl"`
	// EvidenceDays is how long alerts' snapshots and clips are kept; 0
	// keeps them for ever. Alerts and their trails are always kept.
	EvidenceDays int `mapstructure:"evidence_days"`
	// TLSCert and TLSKey, both set, serve the page over HTTPS.
	TLSCert string `mapstructure:"tls_cert"`
	TLSKey  string `mapstructure:"tls_key"`
}

// validateConsole reports the first console setting that cannot be right.
func (c Config) validateConsole() error {
	k := c.Console
	if _, _, err := net.SplitHostPort(k.Listen); err != nil {
		return &ConfigError{"console.listen", k.Listen, "want host:port, such as 127.0.0.1:8080"}
	}
	if k.Database == "" {
		return &ConfigError{"console.database", `""`, "want a SQLite file (console.db) or a postgres:// URL"}
	}
	if p := k.TopicPrefix; p != "" && (strings.ContainsAny(p, "#+ ") || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/")) {
		return &ConfigError{"console.topic_prefix", p, "want a topic prefix without spaces, # or +, not starting or ending with /, or empty for mqtt.topic_prefix"}
	}
	if strings.ContainsAny(k.SharedGroup, "/#+ ") {
		return &ConfigError{"console.shared_group", k.SharedGroup, "want a name without spaces, /, # or +"}
	}
	for _, t := range k.Tables {
		if t == "" || strings.ContainsAny(t, "/#+ ") {
			return &ConfigError{"console.tables", t, "want table ids (table.id of each monitor)"}
		}
	}
	if k.SessionTTL < 5*time.Minute || k.SessionTTL > 7*24*time.Hour {
		return &ConfigError{"console.session_ttl", k.SessionTTL, "want 5m to 168h"}
	}
	if k.EvidenceDays < 0 || k.EvidenceDays > 3650 {
		return &ConfigError{"console.evidence_days", k.EvidenceDays, "want 0 (keep evidence for ever) to 3650 days"}
	}
	if (k.TLSCert == "") != (k.TLSKey == "") {
		return &ConfigError{"console.tls_cert", k.TLSCert, "HTTPS needs both console.tls_cert and console.tls_key"}
	}
	return nil
}

const consoleUsage = "monitor console [--config FILE] [--listen ADDR] [--database DB] [--broker URL]"

const delUserUsage = "monitor console deluser NAME [--config FILE] [--database DB]   (disables the user; their resolutions stay in the trail)"

const addUserUsage = "monitor console adduser NAME --role viewer|officer [--config FILE] [--database DB]   (the password is read from stdin)"

// runConsole runs the surveillance room's console: it stores what every
// table publishes and serves the web page, until ctx ends.
func (m *Main) runConsole(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "adduser" {
		return m.runAddUser(ctx, args[1:])
	}
	if len(args) > 0 && args[0] == "deluser" {
		return m.runDelUser(ctx, args[1:])
	}
	fs := pflag.NewFlagSet("console", pflag.ContinueOnError)
	configPath := fs.String("config", "", "configuration file (YAML)")
	fs.String("listen", "", "serve the web page here (default: console.listen)")
	fs.String("database", "", "SQLite file or postgres:// URL (default: console.database)")
	fs.String("broker", "", "MQTT broker (default: mqtt.broker)")
	if err := m.parseFlags(fs, consoleUsage, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fmt.Fprintln(m.Stderr, "usage:", consoleUsage)
		return errUsage
	}
	cfg, err := loadConsoleConfig(*configPath, fs)
	if err != nil {
		return err
	}
	if cfg.MQTT.Broker == "" {
		return &ConfigError{"mqtt.broker", `""`, "the console needs the site's broker (tcp://host:1883 or ssl://host:8883), where the tables publish"}
	}
	tc, err := consoleTLS(cfg.Console)
	if err != nil {
		return err
	}
	log := cfg.Logger(m.Stderr)
	settled, err := backOffConsole(ctx, sdnotify.FromEnv(), log)
	if err != nil {
		return nil // stopped while waiting to start
	}
	db, err := store.Open(ctx, cfg.Console.Database)
	if err != nil {
		return err
	}
	defer db.Close()
	ln, err := net.Listen("tcp", cfg.Console.Listen)
	if err != nil {
		return &ConfigError{"console.listen", cfg.Console.Listen, err.Error()}
	}
	settled()
	return m.serveConsole(ctx, cfg, db, ln, tc, log)
}

// consoleTLS is the page's TLS configuration, nil for plain HTTP. A file
// that cannot be read, or a key that is not the certificate's, is a
// ConfigError naming its setting.
func consoleTLS(k ConsoleConfig) (*tls.Config, error) {
	if k.TLSCert == "" {
		return nil, nil
	}
	for _, f := range []struct{ field, path string }{{"console.tls_cert", k.TLSCert}, {"console.tls_key", k.TLSKey}} {
		if _, err := os.ReadFile(f.path); err != nil {
			return nil, &ConfigError{f.field, f.path, "cannot read it: " + err.Error()}
		}
	}
	cert, err := tls.LoadX509KeyPair(k.TLSCert, k.TLSKey)
	if err != nil {
		return nil, &ConfigError{"console.tls_cert", k.TLSCert, "want a PEM certificate whose key is console.tls_key (" + k.TLSKey + "): " + err.Error()}
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}, nil
}

// loadConsoleConfig loads the configuration with the console's flags, and
// finds a SQLite database beside the configuration file.
func loadConsoleConfig(path string, fs *pflag.FlagSet) (Config, error) {
	cfg, err := loadConfig(path, fs, map[string]string{"console.listen": "listen", "console.database": "database", "mqtt.broker": "broker"})
	if err != nil {
		return Config{}, err
	}
	if d := cfg.Console.Database; !store.IsPostgres(d) && !filepath.IsAbs(d) && path != "" && !fs.Changed("database") {
		cfg.Console.Database = filepath.Join(filepath.Dir(path), d)
	}
	return cfg, nil
}

// serveConsole runs the ingest, the live feed and the web server on ln
// until ctx ends or one of them fails to start.
func (m *Main) serveConsole(ctx context.Context, cfg Config, db *store.Store, ln net.Listener, tc *tls.Config, log *slog.Logger) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	k := cfg.Console
	var in *ingest.Ingester
	srv, err := web.New(web.Config{SessionTTL: k.SessionTTL, Secure: tc != nil, Logger: log,
		Counts: func() map[string]int64 { return in.Counts() }}, db)
	if err != nil {
		return err
	}
	ic := ingestConfig(cfg, log, srv.Wake)
	ic.Roster = db // used with console.shared_group
	in = ingest.New(ic, db)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, TLSConfig: tc, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	start := func(f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(); err != nil {
				errs <- err
				cancel()
			}
		}()
	}
	start(func() error { srv.Feed(ctx); return nil })
	start(func() error { return in.Run(ctx) })
	start(func() error { expireSessions(ctx, db, log); return nil })
	if k.EvidenceDays > 0 {
		start(func() error { pruneEvidence(ctx, db, time.Duration(k.EvidenceDays)*24*time.Hour, log); return nil })
	}
	start(func() error {
		var err error
		if tc != nil {
			err = hs.ServeTLS(ln, "", "")
		} else {
			err = hs.Serve(ln)
		}
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	})
	scheme := map[bool]string{true: "https", false: "http"}[tc != nil]
	log.Info("console started", "url", scheme+"://"+ln.Addr().String(), "database", db.Dialect(), "broker", cfg.MQTT.Broker,
		"topics", ingestConfig(cfg, log, nil).TopicPrefix+"/+/…")
	fmt.Fprintf(m.Stdout, "console: %s://%s\n", scheme, ln.Addr())
	// systemd (Type=notify): ready once the page is served.
	notify := sdnotify.FromEnv()
	if err := notify.Ready("serving " + scheme + "://" + ln.Addr().String()); err != nil {
		log.Warn("systemd notifications not sent", "err", err)
	}
	<-ctx.Done()
	_ = notify.Stopping()
	sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer scancel()
	hs.Shutdown(sctx) // open live feeds end with ctx
	wg.Wait()
	close(errs)
	return <-errs // nil when none failed
}

// ingestConfig is the console's subscription.
func ingestConfig(cfg Config, log *slog.Logger, wake func()) ingest.Config {
	k, q := cfg.Console, cfg.MQTT
	prefix := k.TopicPrefix
	if prefix == "" {
		prefix = q.TopicPrefix
	}
	id := k.ClientID
	if id == "" {
		host, _ := os.Hostname()
		id = "bjmonitor-console-" + host
	}
	ic := ingest.Config{Broker: q.Broker, ClientID: id, Username: q.Username, Password: q.Password,
		CAFile: q.CAFile, CertFile: q.CertFile, KeyFile: q.KeyFile,
		TopicPrefix: prefix, SharedGroup: k.SharedGroup, Tables: k.Tables, Logger: log}
	if wake != nil {
		ic.OnAlert = func(store.Alert) { wake() }
	}
	return ic
}

// expireSessions deletes expired sessions, and the failed logins of a
// day ago and more, every hour until ctx ends.
func expireSessions(ctx context.Context, db *store.Store, log *slog.Logger) {
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		if err := db.DeleteExpiredSessions(ctx, time.Now()); err != nil && ctx.Err() == nil {
			log.Warn("console: deleting expired sessions", "err", err)
		}
		if err := db.ForgetLoginFailures(ctx, time.Now().Add(-24*time.Hour)); err != nil && ctx.Err() == nil {
			log.Warn("console: forgetting old failed logins", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// pruneEvidence deletes the evidence older than keep at start and then
// every hour, until ctx ends.
func pruneEvidence(ctx context.Context, db *store.Store, keep time.Duration, log *slog.Logger) {
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		now := time.Now()
		n, err := db.PruneEvidence(ctx, now.Add(-keep), now)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("console: deleting expired evidence", "err", err, "deleted", n)
		case n > 0:
			log.Info("console: expired evidence deleted (console.evidence_days)", "files", n, "older_than", now.Add(-keep).Format(time.RFC3339))
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// runAddUser adds a console user, or changes one's role and password. The
// password is the first line of stdin, so it stays out of the shell's
// history and the process list.
func (m *Main) runAddUser(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("console adduser", pflag.ContinueOnError)
	configPath := fs.String("config", "", "configuration file (YAML)")
	fs.String("database", "", "SQLite file or postgres:// URL (default: console.database)")
	role := fs.String("role", "", "viewer (reads alerts) or officer (also resolves them)")
	if err := m.parseFlags(fs, addUserUsage, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || !web.ValidRole(*role) {
		fmt.Fprintln(m.Stderr, "usage:", addUserUsage)
		return errUsage
	}
	cfg, err := loadConsoleConfig(*configPath, fs)
	if err != nil {
		return err
	}
	line, err := bufio.NewReader(m.Stdin).ReadString('\n')
	if err != nil && line == "" {
		return fmt.Errorf("console adduser: no password on stdin: %w", err)
	}
	hash, err := web.HashPassword(strings.TrimRight(line, "\r\n"))
	if err != nil {
		return fmt.Errorf("console adduser: %w", err)
	}
	db, err := store.Open(ctx, cfg.Console.Database)
	if err != nil {
		return err
	}
	defer db.Close()
	name := fs.Arg(0)
	if err := db.PutUser(ctx, store.User{Name: name, Role: *role, PasswordHash: hash, Created: time.Now()}); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "console: user %s (%s) saved in %s\n", name, *role, db.Dialect())
	return nil
}

// runDelUser disables a console user: they can no longer log in, their
// sessions end, and what they resolved stays in the trail under their
// name. adduser with the name enables them again.
func (m *Main) runDelUser(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("console deluser", pflag.ContinueOnError)
	configPath := fs.String("config", "", "configuration file (YAML)")
	fs.String("database", "", "SQLite file or postgres:// URL (default: console.database)")
	if err := m.parseFlags(fs, delUserUsage, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(m.Stderr, "usage:", delUserUsage)
		return errUsage
	}
	cfg, err := loadConsoleConfig(*configPath, fs)
	if err != nil {
		return err
	}
	db, err := store.Open(ctx, cfg.Console.Database)
	if err != nil {
		return err
	}
	defer db.Close()
	name := fs.Arg(0)
	if err := db.DisableUser(ctx, name, time.Now()); err != nil {
		return fmt.Errorf("console deluser %s: %w", name, err)
	}
	fmt.Fprintf(m.Stdout, "console: user %s disabled in %s; their resolutions stay in the audit trail\n", name, db.Dialect())
	return nil
}
