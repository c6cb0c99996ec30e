package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"bjmonitor/internal/mqtttest"
	"bjmonitor/publish/testcert"
)

// TestConsoleTLS: with console.tls_cert and tls_key the console serves
// HTTPS only, and its cookies are Secure; without them, plain HTTP and
// cookies a plain-HTTP browser keeps.
func TestConsoleTLS(t *testing.T) {
	certs := testcert.Write(t, t.TempDir(), "console")
	pem, err := os.ReadFile(certs.CA)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	// No broker answers there: the page does not need one.
	broker := fmt.Sprintf("tcp://127.0.0.1:%d", mqtttest.FreePort(t))
	for _, tt := range []struct {
		name, scheme, extra string
	}{
		{"https", "https", fmt.Sprintf("  tls_cert: %s\n  tls_key: %s\n", certs.ServerCert, certs.ServerKey)},
		{"http", "http", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			port := mqtttest.FreePort(t)
			config := filepath.Join(t.TempDir(), "console.yaml")
			text := fmt.Sprintf("mqtt:\n  broker: %s\nconsole:\n  listen: 127.0.0.1:%d\n  database: console.db\n  client_id: console-tls-%d\n%s", broker, port, port, tt.extra)
			if err := os.WriteFile(config, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			addConsoleUsers(t, config)
			jar, _ := cookiejar.New(nil)
			c := &http.Client{Jar: jar, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
			u := fmt.Sprintf("%s://127.0.0.1:%d", tt.scheme, port)
			runTestConsole(t, config, u, c)
			secure := tt.scheme == "https"
			if secure {
				// Plain HTTP on the HTTPS port gets no page.
				if resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/login", port)); err == nil {
					resp.Body.Close()
					if resp.StatusCode == http.StatusOK {
						t.Errorf("plain HTTP to the HTTPS console: %s, want no page", resp.Status)
					}
				}
			}
			for _, ck := range logInCookies(t, c, u, "ana") {
				if ck.Secure != secure || !ck.HttpOnly {
					t.Errorf("cookie %s: Secure %v, HttpOnly %v; want Secure %v, HttpOnly", ck.Name, ck.Secure, ck.HttpOnly, secure)
				}
			}
			if page := get(t, c, u+"/"); !strings.Contains(page, "ana") || strings.Contains(page, `name="password"`) {
				t.Errorf("after logging in over %s the console shows the login page", tt.scheme)
			}
		})
	}
}

// logInCookies logs c in at u as name, and returns the cookies the login
// page and the login set.
func logInCookies(t *testing.T, c *http.Client, u, name string) []*http.Cookie {
	t.Helper()
	resp, err := c.Get(u + "/login")
	if err != nil {
		t.Fatal(err)
	}
	cookies := resp.Cookies()
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(page)
	if csrf == nil {
		t.Fatalf("no login form at %s", u)
	}
	noRedirect := *c
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err = noRedirect.PostForm(u+"/login", url.Values{"csrf": {string(csrf[1])}, "name": {name}, "password": {"correct horse"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("logging in at %s: %s, want 303 See Other", u, resp.Status)
	}
	return append(cookies, resp.Cookies()...)
}

// TestConsoleTLSConfigErrors: a certificate or key the console cannot use
// stops it with exit status 2 and the setting named.
func TestConsoleTLSConfigErrors(t *testing.T) {
	dir := t.TempDir()
	certs := testcert.Write(t, dir, "console")
	other := testcert.Write(t, dir, "other")
	missing := filepath.Join(dir, "nope.pem")
	for _, tt := range []struct {
		name, cert, key, field, value string
	}{
		{"no certificate", missing, certs.ServerKey, "console.tls_cert", missing},
		{"no key", certs.ServerCert, missing, "console.tls_key", missing},
		{"another's key", certs.ServerCert, other.ServerKey, "console.tls_cert", certs.ServerCert},
		{"key as certificate", certs.ServerKey, certs.ServerKey, "console.tls_cert", certs.ServerKey},
	} {
		t.Run(tt.name, func(t *testing.T) {
			config := writeConfig(t, fmt.Sprintf("mqtt:\n  broker: tcp://127.0.0.1:1\nconsole:\n  database: %s\n  tls_cert: %s\n  tls_key: %s\n",
				filepath.Join(t.TempDir(), "c.db"), tt.cert, tt.key))
			_, _, err := run(t, "console", "--config", config)
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != tt.field || !strings.Contains(err.Error(), tt.value) {
				t.Errorf("console = %v, want a ConfigError on %s naming %s", err, tt.field, tt.value)
			}
			if got := exitCode(err); got != 2 {
				t.Errorf("exit status %d, want 2", got)
			}
		})
	}
}
