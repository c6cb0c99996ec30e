// Package testcert writes throwaway TLS certificates for tests that talk to a
// real broker over TLS: a CA, a server certificate for 127.0.0.1 and
// localhost, and a client certificate, all signed by that CA. Only tests
// import it.
package testcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Files are the PEM files Write made.
type Files struct {
	CA         string // the CA certificate: the broker's cafile, the client's CAFile
	ServerCert string
	ServerKey  string
	ClientCert string
	ClientKey  string
}

// Write makes a fresh CA named name and its server and client certificates
// in dir, failing tb on any error. Two calls make two unrelated CAs, so a
// client given the other's CA fails verification.
func Write(tb testing.TB, dir, name string) Files {
	tb.Helper()
	f := Files{
		CA:         filepath.Join(dir, name+"-ca.pem"),
		ServerCert: filepath.Join(dir, name+"-server.pem"),
		ServerKey:  filepath.Join(dir, name+"-server.key"),
		ClientCert: filepath.Join(dir, name+"-client.pem"),
		ClientKey:  filepath.Join(dir, name+"-client.key"),
	}
	now := time.Now()
	caKey := newKey(tb)
	ca := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name + " test CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		tb.Fatalf("testcert: CA: %v", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		tb.Fatalf("testcert: CA: %v", err)
	}
	writePEM(tb, f.CA, "CERTIFICATE", caDER)

	leaf := func(serial int64, cn string, usage x509.ExtKeyUsage, certFile, keyFile string, server bool) {
		key := newKey(tb)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial),
			Subject:      pkix.Name{CommonName: cn},
			NotBefore:    now.Add(-time.Hour),
			NotAfter:     now.Add(24 * time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature,
			ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		}
		if server {
			tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
			tmpl.DNSNames = []string{"localhost"}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			tb.Fatalf("testcert: %s: %v", cn, err)
		}
		writePEM(tb, certFile, "CERTIFICATE", der)
		kder, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			tb.Fatalf("testcert: %s key: %v", cn, err)
		}
		writePEM(tb, keyFile, "PRIVATE KEY", kder)
	}
	leaf(2, "127.0.0.1", x509.ExtKeyUsageServerAuth, f.ServerCert, f.ServerKey, true)
	leaf(3, name+"-client", x509.ExtKeyUsageClientAuth, f.ClientCert, f.ClientKey, false)
	return f
}

func newKey(tb testing.TB) *ecdsa.PrivateKey {
	tb.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatalf("testcert: key: %v", err)
	}
	return k
}

func writePEM(tb testing.TB, path, typ string, der []byte) {
	tb.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		tb.Fatalf("testcert: %v", err)
	}
}
