package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"bjmonitor/console/store"
)

// Cookie names.
const (
	sessionCookie = "bjconsole_session"
	loginCookie   = "bjconsole_login" // the login form's CSRF token
)

// visitor is a logged-in user and their session.
type visitor struct {
	User    store.User
	Session store.Session
}

// Officer reports whether the visitor may resolve alerts.
func (v *visitor) Officer() bool { return v.User.Role == Officer }

// HashPassword returns the bcrypt hash a user's password is stored as.
func HashPassword(password string) (string, error) {
	if len(password) < 8 {
		return "", errors.New("a password needs at least 8 characters")
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	return string(h), err
}

// ValidRole reports whether role is one a user may have.
func ValidRole(role string) bool { return role == Viewer || role == Officer }

// dummyHash is compared against when the user does not exist, so a wrong
// name takes as long to refuse as a wrong password.
var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("no such user"), bcrypt.MinCost)

func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

func sameToken(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// session wraps a handler that needs a logged-in visitor. Without a valid
// session, a page is redirected to the login page, and anything else
// refused with 401. A POST must carry the session's CSRF token.
func (s *Server) session(h func(http.ResponseWriter, *http.Request, *visitor)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := s.visitor(r)
		if v == nil {
			if r.Method == http.MethodGet && r.URL.Path != "/events" && r.URL.Path != "/evidence" {
				http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			http.Error(w, "log in first", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodPost && !sameToken(r.PostFormValue("csrf"), v.Session.CSRF) {
			http.Error(w, "this form has expired; reload the page and try again", http.StatusForbidden)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		h(w, r, v)
	})
}

// visitor returns the request's logged-in visitor, or nil.
func (s *Server) visitor(r *http.Request) *visitor {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return nil
	}
	se, err := s.store.Session(r.Context(), tokenHash(c.Value), s.cfg.Now())
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			s.log.Error("console: reading a session", "err", err)
		}
		return nil
	}
	u, err := s.store.User(r.Context(), se.User)
	if err != nil || !u.Disabled.IsZero() {
		return nil // a user disabled since logging in
	}
	return &visitor{User: u, Session: se}
}

// A guesser is slowed down: after freeFailures failed logins in a row for
// one user name, or from one remote address, each further attempt waits
// a delay that doubles with each failure (1 s, 2 s, 4 s, …), up to
// maxLoginDelay. A run of failures is forgotten after loginWindow without
// one. The delay, not a lock-out, keeps a guesser from locking an officer
// out of the console for long.
const (
	freeFailures  = 5
	maxLoginDelay = 15 * time.Minute
	loginWindow   = time.Hour
)

// loginDelay is how long after the nth failure in a row the next attempt
// waits.
func loginDelay(n int) time.Duration {
	if n < freeFailures {
		return 0
	}
	if n-freeFailures >= 10 {
		return maxLoginDelay
	}
	return min(time.Second<<(n-freeFailures), maxLoginDelay)
}

// loginSubjects are the keys failures are counted under: the user name
// (trimmed to a sane length, since anything may be posted) and the remote
// address without its port. Behind a reverse proxy every request comes
// from the proxy's address.
func loginSubjects(name, remote string) []string {
	if len(name) > 100 {
		name = name[:100]
	}
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	return []string{"user:" + name, "addr:" + host}
}

// loginWait is how long the next attempt for subjects must still wait.
// A store that fails does not stop officers logging in.
func (s *Server) loginWait(ctx context.Context, subjects []string) time.Duration {
	now := s.cfg.Now()
	var wait time.Duration
	for _, sub := range subjects {
		n, last, err := s.store.LoginFailures(ctx, sub)
		if err != nil {
			s.log.Error("console: reading failed logins", "err", err)
			continue
		}
		if now.Sub(last) > loginWindow {
			continue
		}
		wait = max(wait, last.Add(loginDelay(n)).Sub(now))
	}
	return wait
}

// loginFailed counts a failed login under each subject, and logs those
// now slowed down.
func (s *Server) loginFailed(ctx context.Context, subjects []string, name, remote string) {
	now := s.cfg.Now()
	for _, sub := range subjects {
		n, err := s.store.AddLoginFailure(ctx, sub, now, now.Add(-loginWindow))
		if err != nil {
			s.log.Error("console: counting a failed login", "err", err)
			continue
		}
		if d := loginDelay(n); d > 0 {
			s.log.Warn("console: repeated failed logins; slowing down", "subject", sub, "failures", n, "next_attempt_in", d, "user", name, "remote", remote)
		}
	}
}

// refusal says, for the log only, why a login was refused; the page says
// "wrong name or password" whatever the reason.
func refusal(err error) string {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "no such user"
	case err != nil:
		return err.Error()
	}
	return "wrong password"
}

type loginData struct {
	CSRF, Next, Error, Name string
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	s.showLogin(w, r, http.StatusOK, "", "")
}

func (s *Server) showLogin(w http.ResponseWriter, r *http.Request, status int, name, problem string) {
	// A browser loads the login page more than once (a redirected
	// favicon, a second tab): it keeps its token, so any of its forms
	// still posts.
	token := randomToken()
	if c, err := r.Cookie(loginCookie); err == nil && len(c.Value) == len(token) {
		token = c.Value
	}
	http.SetCookie(w, &http.Cookie{Name: loginCookie, Value: token, Path: "/login", HttpOnly: true, Secure: s.cfg.Secure, SameSite: http.SameSiteStrictMode, MaxAge: 3600})
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, status, "login", nil, loginData{CSRF: token, Next: safeNext(r.FormValue("next")), Error: problem, Name: name})
}

// safeNext is where to go after logging in: a path on this site only.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") || strings.HasPrefix(next, "/login") {
		return "/"
	}
	return next
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	c, err := r.Cookie(loginCookie)
	if err != nil || !sameToken(r.PostFormValue("csrf"), c.Value) {
		s.showLogin(w, r, http.StatusForbidden, "", "This form has expired; please try again.")
		return
	}
	name, password := r.PostFormValue("name"), r.PostFormValue("password")
	subjects := loginSubjects(name, r.RemoteAddr)
	if wait := s.loginWait(r.Context(), subjects); wait > 0 {
		secs := int((wait + time.Second - 1) / time.Second)
		s.log.Warn("console: login refused: too many failed logins", "user", name, "remote", r.RemoteAddr, "retry_in_s", secs)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		s.showLogin(w, r, http.StatusTooManyRequests, name, fmt.Sprintf("Too many failed logins. Try again in %d seconds.", secs))
		return
	}
	u, err := s.store.User(r.Context(), name)
	hash := []byte(u.PasswordHash)
	if err != nil {
		hash = dummyHash
	}
	if err == nil && !u.Disabled.IsZero() {
		err = errors.New("user disabled")
	}
	if bcrypt.CompareHashAndPassword(hash, []byte(password)) != nil || err != nil {
		s.log.Warn("console: login refused", "user", name, "remote", r.RemoteAddr, "why", refusal(err))
		s.loginFailed(r.Context(), subjects, name, r.RemoteAddr)
		s.showLogin(w, r, http.StatusUnauthorized, name, "Wrong name or password.")
		return
	}
	if err := s.store.ClearLoginFailures(r.Context(), subjects[0]); err != nil {
		s.log.Warn("console: forgetting failed logins", "user", name, "err", err)
	}
	token := randomToken()
	se := store.Session{TokenHash: tokenHash(token), User: u.Name, CSRF: randomToken(), Expires: s.cfg.Now().Add(s.cfg.SessionTTL)}
	if err := s.store.CreateSession(r.Context(), se); err != nil {
		s.fail(w, "creating a session", err)
		return
	}
	s.log.Info("console: logged in", "user", u.Name, "role", u.Role, "remote", r.RemoteAddr)
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: token, Path: "/", HttpOnly: true, Secure: s.cfg.Secure,
		SameSite: http.SameSiteLaxMode, Expires: se.Expires})
	http.SetCookie(w, &http.Cookie{Name: loginCookie, Path: "/login", MaxAge: -1, HttpOnly: true, Secure: s.cfg.Secure, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, safeNext(r.PostFormValue("next")), http.StatusSeeOther)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request, v *visitor) {
	if err := s.store.DeleteSession(r.Context(), v.Session.TokenHash); err != nil {
		s.fail(w, "ending a session", err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Path: "/", MaxAge: -1, HttpOnly: true, Secure: s.cfg.Secure, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}
