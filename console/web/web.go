package web

import (
	"context"
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"bjmonitor/console/store"
)

// Store is what the console's pages read and write.
type Store interface {
	Tables(ctx context.Context, now time.Time) ([]store.Table, error)
	Alerts(ctx context.Context, f store.Filter) ([]store.Alert, error)
	CountAlerts(ctx context.Context, f store.Filter) (int, error)
	AlertsAfter(ctx context.Context, seq int64, limit int) ([]store.Alert, error)
	LastSeq(ctx context.Context) (int64, error)
	Alert(ctx context.Context, id string) (store.Alert, error)
	Round(ctx context.Context, table, round string) (store.Round, error)
	Outcomes(ctx context.Context, table, round string) ([]store.Outcome, error)
	RoundAlerts(ctx context.Context, table, round string) ([]store.Alert, error)
	Evidence(ctx context.Context, alertID, file string) (store.Evidence, error)
	EvidenceFiles(ctx context.Context, alertID string) ([]store.EvidenceFile, error)
	Record(ctx context.Context, e store.AuditEntry) error
	Audit(ctx context.Context, alertID string) ([]store.AuditEntry, error)
	Trails(ctx context.Context, ids []string) (map[string][]store.AuditEntry, error)
	User(ctx context.Context, name string) (store.User, error)
	CreateSession(ctx context.Context, se store.Session) error
	Session(ctx context.Context, tokenHash string, now time.Time) (store.Session, error)
	DeleteSession(ctx context.Context, tokenHash string) error
	LoginFailures(ctx context.Context, subject string) (int, time.Time, error)
	AddLoginFailure(ctx context.Context, subject string, at, since time.Time) (int, error)
	ClearLoginFailures(ctx context.Context, subject string) error
}

var _ Store = (*store.Store)(nil)

// Roles a user may have.
const (
	Viewer  = "viewer"
	Officer = "officer"
)

// Config is how the console serves its pages.
type Config struct {
	// SessionTTL is how long a login lasts; 0 is 8 hours, a shift.
	SessionTTL time.Duration
	// Secure marks cookies Secure: set it when serving over TLS.
	Secure bool
	// Counts, when set, reports the ingest's message counts for the
	// tables page.
	Counts func() map[string]int64
	// Logger logs failures; nil discards.
	Logger *slog.Logger
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// FeedPoll is how often the feed looks for alerts other console
	// instances stored; 0 is 250 ms.
	FeedPoll time.Duration
}

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// Server is the console's web server; it is an http.Handler. Feed must
// run for the live feed to move.
type Server struct {
	cfg   Config
	store Store
	log   *slog.Logger
	pages map[string]*template.Template
	mux   *http.ServeMux
	feed  *feed
}

// New returns the console's server on db.
func New(cfg Config, db Store) (*Server, error) {
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = 8 * time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.FeedPoll <= 0 {
		cfg.FeedPoll = 250 * time.Millisecond
	}
	s := &Server{cfg: cfg, store: db, log: cfg.Logger, feed: newFeed(db, cfg.FeedPoll)}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.feed.log = s.log
	if err := s.parseTemplates(); err != nil {
		return nil, err
	}
	s.routes()
	return s, nil
}

// Feed runs the live feed until ctx ends: it finds new alerts in the
// store and sends them to every open page.
func (s *Server) Feed(ctx context.Context) { s.feed.run(ctx) }

// Wake tells the feed a new alert was stored, so it looks at once rather
// than at its next poll.
func (s *Server) Wake() { s.feed.wake() }

func (s *Server) routes() {
	static, _ := fs.Sub(staticFiles, "static")
	m := http.NewServeMux()
	m.HandleFunc("GET /favicon.ico", http.NotFound)
	m.Handle("GET /static/", http.StripPrefix("/static/", http.FileServer(http.FS(static))))
	m.HandleFunc("GET /login", s.loginPage)
	m.HandleFunc("POST /login", s.login)
	m.Handle("POST /logout", s.session(s.logout))
	m.Handle("GET /{$}", s.session(s.home))
	m.Handle("GET /alerts", s.session(s.alertList))
	m.Handle("GET /alerts.csv", s.session(s.alertCSV))
	m.Handle("GET /alert", s.session(s.alertPage))
	m.Handle("POST /alert", s.session(s.resolve))
	m.Handle("GET /evidence", s.session(s.evidence))
	m.Handle("GET /events", s.session(s.events))
	// Anything else, for a visitor without a session, is the login page.
	m.Handle("/", s.session(func(w http.ResponseWriter, r *http.Request, _ *visitor) { http.NotFound(w, r) }))
	s.mux = m
}

// ServeHTTP serves the console, with headers that keep the page to its
// own files.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self'; media-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	s.mux.ServeHTTP(w, r)
}
