package publish

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"bjmonitor/publish/testcert"

	"bjmonitor/internal/mqtttest"
)

// tlsBroker starts Mosquitto with a TLS listener (the returned ssl:// URL)
// using certs, and a plain listener for the test's subscriber (tcp:// URL).
func tlsBroker(t *testing.T, certs testcert.Files, requireCert bool) (tlsURL, plainURL string, b *mqtttest.Mosquitto) {
	t.Helper()
	plain := mqtttest.FreePort(t)
	extra := fmt.Sprintf("cafile %s\ncertfile %s\nkeyfile %s\n", certs.CA, certs.ServerCert, certs.ServerKey)
	if requireCert {
		extra += "require_certificate true\n"
	}
	extra += fmt.Sprintf("listener %d 127.0.0.1\n", plain)
	b = mqtttest.NewMosquitto(t, extra)
	b.Start()
	// Mosquitto's log helps when a handshake fails for an unexpected reason.
	t.Cleanup(func() {
		if t.Failed() {
			text := b.Log()
			t.Logf("mosquitto log:\n%s", text)
		}
	})
	return fmt.Sprintf("ssl://127.0.0.1:%d", b.Port), fmt.Sprintf("tcp://127.0.0.1:%d", plain), b
}

// wantTLSError checks that New failed with ErrTLS and a message an
// installer can act on: it names the broker and says what is wrong.
func wantTLSError(t *testing.T, cfg Config, wants ...string) {
	t.Helper()
	start := time.Now()
	p, err := New(cfg)
	if err == nil {
		p.Close()
		t.Fatal("New: no error")
	}
	t.Logf("New failed after %v: %v", time.Since(start).Round(time.Millisecond), err)
	if !errors.Is(err, ErrTLS) {
		t.Errorf("New: error does not wrap ErrTLS")
	}
	for _, w := range append([]string{cfg.Broker}, wants...) {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("New: error does not mention %q", w)
		}
	}
}

func TestTLS(t *testing.T) {
	dir := t.TempDir()
	good := testcert.Write(t, dir, "site")
	other := testcert.Write(t, dir, "other") // a CA unrelated to the broker's
	url, plainURL, _ := tlsBroker(t, good, false)

	t.Run("right CA", func(t *testing.T) {
		sub := mqtttest.Subscribe(t, plainURL, "sub-tls", "test/t1/alert", true)
		cfg := testConfig(t, url, t.TempDir())
		cfg.CAFile = good.CA
		p, err := New(cfg)
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		defer p.Close()
		if !p.Connected() {
			t.Fatal("Connected() = false over TLS with the right CA")
		}
		if err := p.Publish(context.Background(), KindAlert, alertPayload(7)); err != nil {
			t.Fatal(err)
		}
		if got, want := alertID(t, sub.Next(t, 5*time.Second).Payload), "alert-007"; got != want {
			t.Errorf("alert over TLS = %s, want %s", got, want)
		}
	})
	t.Run("wrong CA", func(t *testing.T) {
		cfg := testConfig(t, url, t.TempDir())
		cfg.CAFile = other.CA
		wantTLSError(t, cfg, "certificate verification failed", "not signed by a CA", other.CA)
	})
	t.Run("system roots", func(t *testing.T) {
		cfg := testConfig(t, url, t.TempDir())
		wantTLSError(t, cfg, "certificate verification failed", "system's CA certificates")
	})
	t.Run("TLS to a plain port", func(t *testing.T) {
		// The Go client speaks first; Mosquitto, reading MQTT, just hangs
		// up. That looks like a broker going down, so it is retried, not
		// reported: New must still succeed without connecting.
		cfg := testConfig(t, "ssl"+strings.TrimPrefix(plainURL, "tcp"), t.TempDir())
		cfg.CAFile = good.CA
		p, err := New(cfg)
		if err != nil {
			t.Logf("New: %v", err)
			return
		}
		defer p.Close()
		if p.Connected() {
			t.Error("Connected() = true, speaking TLS to a plain port")
		}
	})
}

func TestTLSClientCertificate(t *testing.T) {
	dir := t.TempDir()
	good := testcert.Write(t, dir, "site")
	other := testcert.Write(t, dir, "other")
	url, _, _ := tlsBroker(t, good, true)

	t.Run("given", func(t *testing.T) {
		cfg := testConfig(t, url, t.TempDir())
		cfg.CAFile, cfg.CertFile, cfg.KeyFile = good.CA, good.ClientCert, good.ClientKey
		p, err := New(cfg)
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		defer p.Close()
		if !p.Connected() {
			t.Error("Connected() = false with a client certificate the broker trusts")
		}
	})
	t.Run("missing", func(t *testing.T) {
		cfg := testConfig(t, url, t.TempDir())
		cfg.CAFile = good.CA
		wantTLSError(t, cfg, "requires a client certificate", "set the client certificate")
	})
	t.Run("from another CA", func(t *testing.T) {
		cfg := testConfig(t, url, t.TempDir())
		cfg.CAFile, cfg.CertFile, cfg.KeyFile = good.CA, other.ClientCert, other.ClientKey
		wantTLSError(t, cfg, "does not accept the client certificate", other.ClientCert)
	})
}

// TestTLSProblemMessages covers the failures a loopback test cannot easily
// stage (a certificate for another host, an expired one).
func TestTLSProblemMessages(t *testing.T) {
	cert := &x509.Certificate{DNSNames: []string{"broker.site"}, IPAddresses: []net.IP{net.IPv4(10, 0, 0, 5)}}
	expired := &x509.Certificate{NotBefore: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)}
	p := &Publisher{cfg: Config{CAFile: "/etc/bjmonitor/ca.pem"}}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"host name", fmt.Errorf("network Error : %w", &tls.CertificateVerificationError{Err: x509.HostnameError{Certificate: cert, Host: "10.0.0.6"}}),
			`is for broker.site, 10.0.0.5, not "10.0.0.6"`},
		{"expired", x509.CertificateInvalidError{Cert: expired, Reason: x509.Expired}, "has expired or is not yet valid (valid 2020-01-01T00:00:00Z to 2021-01-01T00:00:00Z"},
		{"plain port", tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}, "did not answer in TLS"},
		{"refused", &net.OpError{Op: "remote error", Err: errors.New("tls: bad certificate")}, "refused the TLS connection (bad certificate); it probably requires a client certificate"},
		{"down", &net.OpError{Op: "dial", Err: errors.New("connection refused")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := p.tlsProblem(tc.err)
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("tlsProblem(%v) = %q, want it to contain %q", tc.err, got, tc.want)
			}
		})
	}
}
