package remote_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/remote"
	"github.com/codemode-go/codemode/internal/runnerhost"
)

// testCA issues certificates for the TLS tests.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newCA(t *testing.T) *testCA {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pool: pool}
}

func (ca *testCA) issue(t *testing.T, name string, usage x509.ExtKeyUsage) tls.Certificate {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestMutualTLS: with mutual TLS a token is optional; a client without a
// certificate from the host's CA, or one that does not trust the host, is
// refused, and the host keeps serving.
func TestMutualTLS(t *testing.T) {
	ca, other := newCA(t), newCA(t)
	serverCert := ca.issue(t, "host", x509.ExtKeyUsageServerAuth)
	clientCert := ca.issue(t, "client", x509.ExtKeyUsageClientAuth)
	strangerCert := other.issue(t, "stranger", x509.ExtKeyUsageClientAuth)
	local := quickjsDriver(t)
	for _, withToken := range []bool{false, true} {
		opts := runnerhost.ServerOptions{TLS: &tls.Config{Certificates: []tls.Certificate{serverCert}, ClientCAs: ca.pool,
			ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS13}}
		if withToken {
			opts.Token = token
		}
		h := startHost(t, local, opts)
		for _, tc := range []struct {
			name string
			tls  *tls.Config
			want string
		}{
			{"trusted client", &tls.Config{RootCAs: ca.pool, Certificates: []tls.Certificate{clientCert}}, ""},
			{"client from another CA", &tls.Config{RootCAs: ca.pool, Certificates: []tls.Certificate{strangerCert}}, "certificate"},
			{"client that does not trust the host", &tls.Config{RootCAs: other.pool, Certificates: []tls.Certificate{clientCert}}, "TLS handshake"},
		} {
			t.Run(fmt.Sprintf("%s, token %v", tc.name, withToken), func(t *testing.T) {
				opts := remote.Options{Address: h.addr, TLS: tc.tls}
				if withToken {
					opts.Token = token
				}
				d, err := remote.New(opts)
				if err != nil {
					t.Fatal(err)
				}
				rt, err := client.NewRuntime(context.Background(), d)
				if tc.want == "" {
					if err != nil {
						t.Fatal(err)
					}
					defer rt.Close()
					runOK(t, rt)
					files, err := d.TypeDefinitionFiles(context.Background())
					names := map[string]bool{}
					for _, f := range files {
						names[f.Name] = true
					}
					if err != nil || !names["quickjs-globals.d.ts"] || !names["quickjs-lib.d.ts"] || !names["quickjs-web.d.ts"] {
						t.Fatalf("TypeDefinitionFiles: %d files %v, %v; want the QuickJS globals, web and library files", len(files), names, err)
					}
					if !strings.Contains(rt.Description(), "QuickJS") {
						t.Fatalf("Description = %q", rt.Description())
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("NewRuntime = %v, want an error containing %q", err, tc.want)
				}
			})
		}
	}
	// Without TLS on the client, the host's TLS is not a runner greeting.
	h := startHost(t, local, runnerhost.ServerOptions{Token: token, TLS: &tls.Config{Certificates: []tls.Certificate{serverCert}}})
	d, _ := remote.New(remote.Options{Address: h.addr, Token: token, HandshakeTimeout: time.Second})
	if _, err := client.NewRuntime(context.Background(), d); err == nil || errors.Is(err, remote.ErrAuthFailed) {
		t.Fatalf("plain client to a TLS host: %v", err)
	}
}
