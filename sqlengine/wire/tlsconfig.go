package wire

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"petrel/internal/fsutil"
)

// TLSOptions says where the server's certificate comes from.
type TLSOptions struct {
	// Cert, Key are ssl_cert and ssl_key (PEM files). Both empty: the
	// datadir's generated ones (Datadir/server-cert.pem, server-key.pem),
	// created at first start as MySQL 8's auto_generate_certs does.
	Cert, Key string
	// CA is ssl_ca, the CA certificate clients verify the server with (and
	// the server verifies client certificates with, when a client sends
	// one); default Datadir/ca.pem when the certificates are generated.
	CA string
	// Datadir holds generated certificates and the caching_sha2_password
	// RSA key pair. Required.
	Datadir string
}

// Generated file names, MySQL's.
const (
	caFile         = "ca.pem"
	caKeyFile      = "ca-key.pem"
	serverCertFile = "server-cert.pem"
	serverKeyFile  = "server-key.pem"
	rsaPrivateFile = "private_key.pem"
	rsaPublicFile  = "public_key.pem"
)

// ServerTLS is the server's TLS configuration: the configured certificate,
// or the datadir's generated one (made now if missing, kept across
// restarts). It returns the paths it used, for ssl_cert, ssl_key and
// ssl_ca.
func ServerTLS(o TLSOptions) (*tls.Config, TLSOptions, error) {
	if (o.Cert == "") != (o.Key == "") {
		return nil, o, errors.New("sqlengine: ssl_cert and ssl_key must be set together")
	}
	if o.Cert == "" {
		if o.Datadir == "" {
			return nil, o, errors.New("sqlengine: TLSOptions.Datadir is required")
		}
		o.Cert = filepath.Join(o.Datadir, serverCertFile)
		o.Key = filepath.Join(o.Datadir, serverKeyFile)
		if o.CA == "" {
			o.CA = filepath.Join(o.Datadir, caFile)
		}
		if err := ensureCerts(o.Datadir); err != nil {
			return nil, o, err
		}
	}
	cert, err := tls.LoadX509KeyPair(o.Cert, o.Key)
	if err != nil {
		return nil, o, fmt.Errorf("sqlengine: ssl_cert/ssl_key: %w", err)
	}
	cfg := &tls.Config{
		Certificates: []tls.Certificate{cert},
		// MySQL 8's tls_version default: TLSv1.2,TLSv1.3.
		MinVersion: tls.VersionTLS12,
	}
	if o.CA != "" {
		b, err := os.ReadFile(o.CA)
		if err != nil {
			return nil, o, fmt.Errorf("sqlengine: ssl_ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return nil, o, fmt.Errorf("sqlengine: ssl_ca %s holds no PEM certificate", o.CA)
		}
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
	}
	return cfg, o, nil
}

// ensureCerts generates a CA and a server certificate signed by it in dir,
// unless the server certificate is there already. ECDSA P-256; the server
// certificate names localhost, the loopback addresses and the host name,
// so that clients verifying the server's identity accept it on this host.
func ensureCerts(dir string) error {
	certPath := filepath.Join(dir, serverCertFile)
	if _, err := os.Stat(certPath); err == nil {
		return nil
	}
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "Petrel_Server_Auto_Generated_CA_Certificate"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return err
	}
	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	names := []string{"localhost"}
	if host != "" && host != "localhost" {
		names = append(names, host)
	}
	srvTmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "Petrel_Server_Auto_Generated_Server_Certificate"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(10, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     names,
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, ca, &srvKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	caKeyDER, err := x509.MarshalPKCS8PrivateKey(caKey)
	if err != nil {
		return err
	}
	srvKeyDER, err := x509.MarshalPKCS8PrivateKey(srvKey)
	if err != nil {
		return err
	}
	// The certificate is written last: its presence means the set is
	// complete.
	files := []struct {
		name, typ string
		der       []byte
		perm      os.FileMode
	}{
		{caKeyFile, "PRIVATE KEY", caKeyDER, 0o600},
		{caFile, "CERTIFICATE", caDER, 0o644},
		{serverKeyFile, "PRIVATE KEY", srvKeyDER, 0o600},
		{serverCertFile, "CERTIFICATE", srvDER, 0o644},
	}
	for _, f := range files {
		b := pem.EncodeToMemory(&pem.Block{Type: f.typ, Bytes: f.der})
		if err := fsutil.WriteFileAtomic(filepath.Join(dir, f.name), b, f.perm); err != nil {
			return fmt.Errorf("sqlengine: writing %s: %w", f.name, err)
		}
	}
	return nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	return n.Add(n, big.NewInt(1))
}

// RSAKeys is the caching_sha2_password RSA key pair: clients without TLS
// ask for the public key and send the password encrypted with it.
type RSAKeys struct {
	Private   *rsa.PrivateKey
	PublicPEM []byte
}

// LoadRSAKeys reads the datadir's private_key.pem / public_key.pem,
// generating a 2048-bit pair at first start as MySQL does
// (caching_sha2_password_auto_generate_rsa_keys).
func LoadRSAKeys(dir string) (*RSAKeys, error) {
	privPath := filepath.Join(dir, rsaPrivateFile)
	b, err := os.ReadFile(privPath)
	if errors.Is(err, os.ErrNotExist) {
		key, gerr := rsa.GenerateKey(rand.Reader, 2048)
		if gerr != nil {
			return nil, gerr
		}
		pub, merr := x509.MarshalPKIXPublicKey(&key.PublicKey)
		if merr != nil {
			return nil, merr
		}
		pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})
		if err := fsutil.WriteFileAtomic(filepath.Join(dir, rsaPublicFile), pubPEM, 0o644); err != nil {
			return nil, err
		}
		b = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
		if err := fsutil.WriteFileAtomic(privPath, b, 0o600); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, fmt.Errorf("sqlengine: %s holds no PEM key", privPath)
	}
	key, err := x509.ParsePKCS1PrivateKey(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("sqlengine: %s: %w", privPath, err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, err
	}
	return &RSAKeys{Private: key, PublicPEM: pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})}, nil
}
