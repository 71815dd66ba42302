package wire

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCmdConnTLS: after the client's SSLRequest the connection is TLS
// under Conn's framing. vitess (Conn.Read/Write here) never sees
// the SSLRequest: the handshake response reaches it as sequence 1, its
// reply (sequence 2) reaches the client as 3, and a packet written by an
// auth method (writeAuthPacket) shifts both ways once more; a multi-frame
// command after the handshake passes through TLS byte for byte with
// sequence ids untouched; the greeting announces CLIENT_SSL.
func TestCmdConnTLS(t *testing.T) {
	dir := t.TempDir()
	cfg, used, err := ServerTLS(TLSOptions{Datadir: dir})
	if err != nil {
		t.Fatal(err)
	}
	pem, err := os.ReadFile(used.CA)
	if err != nil || used.CA != filepath.Join(dir, "ca.pem") {
		t.Fatalf("CA %q: %v", used.CA, err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)

	g := testGate(t)
	g.tlsCfg = cfg
	cc, cli := connPair(t, g)
	_ = cli.SetDeadline(time.Now().Add(20 * time.Second))

	// The greeting (vitess writes header and payload separately).
	greeting := append([]byte{10}, "8.0.40-petrel\x00"...)
	greeting = append(greeting, 1, 0, 0, 0)                      // connection id
	greeting = append(greeting, bytes.Repeat([]byte{'s'}, 8)...) // auth data
	greeting = append(greeting, 0, 0x00, 0x02, 33)               // filler, caps low (CLIENT_PROTOCOL_41), charset
	hdr := frame(0, greeting)[:4]
	if _, err := cc.Write(hdr); err != nil {
		t.Fatal(err)
	}
	if _, err := cc.Write(append([]byte(nil), greeting...)); err != nil {
		t.Fatal(err)
	}
	_, got, err := readFrame(cli)
	if err != nil {
		t.Fatal(err)
	}
	caps := binary.LittleEndian.Uint16(got[len(got)-3:])
	if caps&clientSSL == 0 {
		t.Fatalf("greeting capabilities %#x lack CLIENT_SSL", caps)
	}

	// SSLRequest, then TLS.
	req := binary.LittleEndian.AppendUint32(nil, clientSSL|0x200)
	req = binary.LittleEndian.AppendUint32(req, 1<<24)
	req = append(req, 45)
	req = append(req, make([]byte, 23)...)
	write(t, cli, frame(1, req))
	tc := tls.Client(cli, &tls.Config{RootCAs: pool, ServerName: "localhost"})
	resp := append(append([]byte(nil), req...), "user\x00"...)
	done := make(chan error, 1)
	go func() {
		if err := tc.Handshake(); err != nil {
			done <- err
			return
		}
		_, err := tc.Write(frame(2, resp))
		done <- err
	}()
	seq, p, err := readFrame(cc)
	if err != nil {
		t.Fatalf("vitess read after TLS: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("client TLS: %v", err)
	}
	if seq != 1 || !bytes.Equal(p, resp) {
		t.Fatalf("vitess got seq %d %q; want the handshake response as seq 1", seq, p)
	}
	if st := cc.TLSState(); st == nil || st.Version < tls.VersionTLS12 {
		t.Fatalf("TLS state %+v", st)
	}

	// An auth method's own packet follows the client's (seq 3)...
	if err := cc.WriteAuthPacket([]byte{1, 4}); err != nil {
		t.Fatal(err)
	}
	if seq, p, err := readFrame(tc); err != nil || seq != 3 || !bytes.Equal(p, []byte{1, 4}) {
		t.Fatalf("auth packet at the client: seq %d %x %v; want seq 3", seq, p, err)
	}
	// ...the client answers with 4, which vitess reads as 2...
	go func() { _, err := tc.Write(frame(4, []byte("pw\x00"))); done <- err }()
	if seq, p, err := readFrame(cc); err != nil || seq != 2 || string(p) != "pw\x00" {
		t.Fatalf("vitess read: seq %d %q %v; want seq 2", seq, p, err)
	}
	<-done
	// ...and vitess's OK (its seq 3) reaches the client as 5.
	cc.startCommands(nil)
	ok := []byte{0, 0, 0, 2, 0, 0, 0}
	if _, err := cc.Write(frame(3, ok)); err != nil {
		t.Fatal(err)
	}
	if seq, p, err := readFrame(tc); err != nil || seq != 5 || !bytes.Equal(p, ok) {
		t.Fatalf("OK at the client: seq %d %x %v; want seq 5", seq, p, err)
	}

	// A command of two frames (16 MiB - 1, then 5 bytes): sequence ids
	// as sent, bytes intact.
	cc.maxPacket.Store(64 << 20)
	big := bytes.Repeat([]byte{'q'}, maxFrame)
	big[0] = 0x03
	go func() {
		b := append(frame(0, big), frame(1, []byte("tail!"))...)
		_, err := tc.Write(b)
		done <- err
	}()
	s1, p1, err := readFrame(cc)
	if err != nil {
		t.Fatal(err)
	}
	s2, p2, err := readFrame(cc)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s1 != 0 || s2 != 1 || !bytes.Equal(p1, big) || string(p2) != "tail!" {
		t.Fatalf("multi-frame command: seqs %d %d, lengths %d %d", s1, s2, len(p1), len(p2))
	}
	// Replies are no longer renumbered.
	if _, err := cc.Write(frame(1, ok)); err != nil {
		t.Fatal(err)
	}
	if seq, _, err := readFrame(tc); err != nil || seq != 1 {
		t.Fatalf("reply after the handshake: seq %d %v; want 1", seq, err)
	}
}

// TestServerTLSKeepsCertificates: the generated certificates are made
// once; a second start loads the same ones.
func TestServerTLSKeepsCertificates(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := ServerTLS(TLSOptions{Datadir: dir}); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(filepath.Join(dir, serverCertFile))
	cfg, _, err := ServerTLS(TLSOptions{Datadir: dir})
	if err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(filepath.Join(dir, serverCertFile))
	if len(first) == 0 || !bytes.Equal(first, second) || len(cfg.Certificates) != 1 {
		t.Fatal("the server certificate was generated again")
	}
	if _, _, err := ServerTLS(TLSOptions{Datadir: dir, Cert: filepath.Join(dir, serverCertFile)}); err == nil {
		t.Error("ssl_cert without ssl_key was accepted")
	}
	k1, err := LoadRSAKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := LoadRSAKeys(dir)
	if err != nil || !k1.Private.Equal(k2.Private) || k1.Private.N.BitLen() != 2048 {
		t.Fatalf("RSA key pair not kept (or not 2048 bits): %v", err)
	}
}
