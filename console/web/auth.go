package web

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"strings"

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
	if err != nil {
		return nil // a user removed since logging in
	}
	return &visitor{User: u, Session: se}
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
	u, err := s.store.User(r.Context(), name)
	hash := []byte(u.PasswordHash)
	if err != nil {
		hash = dummyHash
	}
	if bcrypt.CompareHashAndPassword(hash, []byte(password)) != nil || err != nil {
		s.log.Warn("console: login refused", "user", name, "remote", r.RemoteAddr)
		s.showLogin(w, r, http.StatusUnauthorized, name, "Wrong name or password.")
		return
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
