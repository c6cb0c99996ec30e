package publish

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

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
		alert := strings.TrimPrefix(op.Err.Error(), "tls: ")
		if p.cfg.CertFile == "" {
			return fmt.Sprintf("the broker refused the TLS connection (%s); it probably requires a client certificate: set the client certificate and key files", alert)
		}
		return fmt.Sprintf("the broker refused the TLS connection (%s); it probably does not accept the client certificate %s: it must be signed by a CA in the broker's cafile, be valid now, and be for client authentication", alert, p.cfg.CertFile)
	}
	return ""
}
