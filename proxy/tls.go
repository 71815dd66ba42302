package proxy

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"os"
	"time"
)

// serverTLS is the TLS the proxy offers clients: the PEM pair named, or a
// self-signed certificate made now (clients that verify certificates
// need the former).
func serverTLS(certFile, keyFile string) (*tls.Config, error) {
	if certFile != "" || keyFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("proxy: TLS certificate: %w", err)
		}
		return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "petrel-proxy"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(10 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}, MinVersion: tls.VersionTLS12}, nil
}

// clientTLS is the backends' TLS from Options.BackendSSL and
// BackendSSLCA.
func clientTLS(mode, caFile string) (backendTLS, error) {
	var bt backendTLS
	switch mode {
	case "", "off":
		return bt, nil
	case "preferred":
	case "required":
		bt.required = true
	default:
		return bt, fmt.Errorf("proxy: backend TLS mode %q: want off, preferred or required", mode)
	}
	bt.cfg = &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile == "" {
		// Petrel generates a self-signed certificate per server: nothing
		// to verify it against.
		bt.cfg.InsecureSkipVerify = true
		return bt, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return bt, fmt.Errorf("proxy: backend CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return bt, fmt.Errorf("proxy: backend CA %s: no PEM certificate", caFile)
	}
	bt.cfg.RootCAs = pool
	return bt, nil
}
