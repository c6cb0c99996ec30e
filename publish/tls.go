package publish

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
)

// isTLSScheme reports whether a broker URL scheme means MQTT over TLS.
func isTLSScheme(scheme string) bool {
	switch scheme {
	case "ssl", "tls", "mqtts":
		return true
	}
	return false
}

// dialTLS opens the TLS connection for paho (its CustomOpenConnectionFn) so
// that a broker hanging up just after the handshake can be told apart from
// a broker that is down. With TLS 1.3 the broker judges our client
// certificate only after the client has finished the handshake: a broker
// that requires one, or does not trust ours, sends an alert and closes.
// Whether the client then reads the alert or only a reset connection
// depends on timing, so such failures are marked here.
func dialTLS(tc *tls.Config) mqtt.OpenConnectionFunc {
	return func(uri *url.URL, o mqtt.ClientOptions) (net.Conn, error) {
		d := o.Dialer
		if d == nil {
			d = &net.Dialer{Timeout: o.ConnectTimeout}
		}
		conn, err := tls.DialWithDialer(d, "tcp", uri.Host, tc)
		if err != nil {
			return nil, err
		}
		return &handshakenConn{Conn: conn}, nil
	}
}

// handshakenConn is a TLS connection whose handshake completed. Until the
// broker has sent a byte (the CONNACK), a dropped connection is reported
// as errHungUpAfterHandshake.
type handshakenConn struct {
	net.Conn
	answered atomic.Bool
}

func (c *handshakenConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.answered.Store(true)
	}
	if err != nil && n == 0 && !c.answered.Load() && droppedConn(err) {
		err = &hungUpError{err}
	}
	return n, err
}

// Write marks a failure too: the broker may hang up before paho has even
// written CONNECT.
func (c *handshakenConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if err != nil && !c.answered.Load() && droppedConn(err) {
		err = &hungUpError{err}
	}
	return n, err
}

func droppedConn(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// hungUpError: the broker closed the connection after the TLS handshake
// without answering CONNECT.
type hungUpError struct{ err error }

func (e *hungUpError) Error() string {
	return "connection closed right after the TLS handshake: " + e.err.Error()
}
func (e *hungUpError) Unwrap() error { return e.err }

// tlsProblem explains, for whoever installs the box, a failed connection
// that is a TLS certificate problem and will not go away by retrying. It
// returns "" for other errors (broker down, network unreachable).
func (p *Publisher) tlsProblem(err error) string {
	ca := "the system's CA certificates"
	if p.cfg.CAFile != "" {
		ca = fmt.Sprintf("CA file %s", p.cfg.CAFile)
	}
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		verify   *tls.CertificateVerificationError
		header   tls.RecordHeaderError
		op       *net.OpError
	)
	switch {
	case errors.As(err, &unknown):
		return fmt.Sprintf("certificate verification failed: the broker's certificate is not signed by a CA in %s; set the CA file to the CA that signed the broker's certificate", ca)
	case errors.As(err, &hostname):
		names := strings.Join(hostname.Certificate.DNSNames, ", ")
		for _, ip := range hostname.Certificate.IPAddresses {
			names = strings.TrimPrefix(names+", "+ip.String(), ", ")
		}
		if names == "" {
			names = "no names (only a common name " + hostname.Certificate.Subject.CommonName + ")"
		}
		return fmt.Sprintf("certificate verification failed: the broker's certificate is for %s, not %q; use one of those names in the broker URL, or reissue the certificate", names, hostname.Host)
	case errors.As(err, &invalid):
		if invalid.Reason == x509.Expired {
			return fmt.Sprintf("certificate verification failed: a certificate in the broker's chain has expired or is not yet valid (valid %s to %s; this box's clock says %s)",
				invalid.Cert.NotBefore.UTC().Format(time.RFC3339), invalid.Cert.NotAfter.UTC().Format(time.RFC3339), time.Now().UTC().Format(time.RFC3339))
		}
		return "certificate verification failed: the broker's certificate is not valid for a server"
	case errors.As(err, &verify):
		return fmt.Sprintf("certificate verification failed: the broker's certificate does not verify against %s", ca)
	case errors.As(err, &header):
		return "the broker did not answer in TLS: the port is probably a plain MQTT one; use tcp:// for it, or the broker's TLS port (often 8883)"
	case errors.As(err, &op) && op.Op == "remote error" && strings.Contains(op.Err.Error(), "tls:"):
		// The broker sent a TLS alert. In TLS 1.3 it judges our client
		// certificate after the handshake, so this arrives on the first
		// read, not in the dial.
		return p.clientCertProblem(fmt.Sprintf("the broker refused the TLS connection (%s)", strings.TrimPrefix(op.Err.Error(), "tls: ")))
	case errors.As(err, new(*hungUpError)):
		return p.clientCertProblem("the broker closed the connection right after the TLS handshake, without answering")
	}
	return ""
}

func (p *Publisher) clientCertProblem(what string) string {
	if p.cfg.CertFile == "" {
		return what + "; it probably requires a client certificate: set the client certificate and key files (see the broker's log)"
	}
	return fmt.Sprintf("%s; it probably does not accept the client certificate %s: it must be signed by a CA in the broker's cafile, be valid now, and be for client authentication (see the broker's log)", what, p.cfg.CertFile)
}
