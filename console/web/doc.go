// Package web serves the surveillance room's console: the tables and
// their health, a live feed of alerts (server-sent events), each alert's
// page with its evidence, the round's hands and the dealer's entries, the
// officers' resolutions with their audit trail, filters and a CSV export.
//
// Everything the page needs is embedded in the binary (html/template
// pages, one stylesheet, one script): it works with no internet access.
//
// Access: a request without a session gets the login page and nothing
// else (and the stylesheet it uses). Passwords are checked against bcrypt
// hashes; a session is a random token in an HttpOnly cookie, of which the
// database keeps only a hash, and it expires after Config.SessionTTL.
// Every form carries a per-session CSRF token (the login form a
// per-browser one). A viewer reads; an officer may also acknowledge and
// resolve alerts. The Content-Security-Policy allows the page's own
// files only.
//
//	srv, err := web.New(web.Config{SessionTTL: 8 * time.Hour}, db)
//	go srv.Feed(ctx)          // the live feed's poller; ends with ctx
//	http.ListenAndServe(addr, srv)
package web
