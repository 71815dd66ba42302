package proxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// credential is what the proxy holds to log in to backends as a client's
// account: the SHA1(password) a mysql_native_password login yields (see
// auth.go), and the password itself when the client's login revealed it
// (caching_sha2_password's full authentication).
type credential struct {
	user string
	// collation is the client's handshake collation id: the backend
	// connections it uses are opened with it, so that its queries and
	// results are in its character set (0: utf8mb4_0900_ai_ci).
	collation byte

	stage1   []byte // SHA1(password); nil for an empty password
	password string
	hasPass  bool
}

// backendConn is one client connection to a backend, owned by one
// session at a time (not safe for concurrent use).
type backendConn struct {
	pc *packetConn
	// raw is the socket (under TLS, pc's is the TLS layer): close cuts
	// it, never waiting on a TLS close alert.
	raw       net.Conn
	backend   int
	user      string
	collation byte
	db        string
	// stmts are the statements prepared on this connection, by database
	// and text (prepared statements are shared by every session that
	// checks the connection out); params their parameter counts.
	stmts  map[stmtKey]uint32
	params map[uint32]int
	order  []stmtKey
	// broken: an I/O error left the protocol state unknown; close it.
	broken bool
	// gen is its slot's generation when it was opened (pool.gen).
	gen uint64
	// lease is a held connection's state (see leaseFor): 0 while it is
	// pooled or in use by whoever took it from the pool.
	lease atomic.Uint64
	// heldSince is when its holder last left it idle (unix ns; see
	// pool.releaseHeld).
	heldSince atomic.Int64
	lastUsed  time.Time
}

// A session keeps the pooled connection of its last statement between
// statements (a run of reads costs no pool hand-off per statement),
// while other sessions may take it when they would otherwise wait: a
// held connection's lease is the holder's session id and a state, so
// that taking it and the holder's next use race on one compare-and-swap.
const (
	leaseIdle  = 1 // held, between statements: another session may take it
	leaseBusy  = 2 // held, running a statement
	leaseTaken = 3 // taken from its holder (pool.steal)
)

func leaseFor(session uint32, state uint64) uint64 { return uint64(session)<<8 | state }

// maxStmtsPerConn bounds the statements cached per backend connection;
// the oldest is closed past it.
const maxStmtsPerConn = 256

// backendTLS is how the proxy's connections to backends use TLS.
type backendTLS struct {
	// cfg, when set, is offered to backends (nil: plain connections).
	cfg *tls.Config
	// required refuses a backend that offers no TLS.
	required bool
}

// dialBackend connects and logs in as cred.
func dialBackend(ctx context.Context, addr string, backend int, cred credential, timeout time.Duration, bt backendTLS) (*backendConn, error) {
	d := net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	bc := &backendConn{pc: newPacketConn(c), raw: c, backend: backend, user: cred.user, collation: cred.collation, stmts: map[stmtKey]uint32{}, params: map[uint32]int{}}
	bc.pc.deadline(timeout)
	if err := bc.login(cred, addr, bt); err != nil {
		c.Close()
		return nil, err
	}
	bc.pc.deadline(0)
	bc.lastUsed = time.Now()
	return bc, nil
}

func (b *backendConn) close() { _ = b.raw.Close() }

// login runs the client side of the handshake (over TLS when bt offers
// it and the backend takes it).
func (b *backendConn) login(cred credential, addr string, bt backendTLS) error {
	greet, err := b.pc.readPacket(0)
	if err != nil {
		return fmt.Errorf("proxy: reading the greeting: %w", err)
	}
	if isERR(greet) {
		return parseERR(greet)
	}
	if len(greet) < 1 || greet[0] != 10 {
		return errors.New("proxy: backend greeting is not protocol 10")
	}
	rest := greet[1:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 || len(rest) < i+1+4+8+1+2 {
		return errors.New("proxy: short greeting")
	}
	rest = rest[i+1+4:] // server version, connection id
	salt := append([]byte(nil), rest[:8]...)
	rest = rest[9:]
	caps := uint32(binary.LittleEndian.Uint16(rest))
	rest = rest[2:]
	plugin := "mysql_native_password"
	if len(rest) >= 16 {
		caps |= uint32(binary.LittleEndian.Uint16(rest[3:])) << 16
		authLen := int(rest[5])
		rest = rest[16:]
		n := max(13, authLen-8)
		if len(rest) >= n {
			salt = append(salt, bytes.TrimRight(rest[:n], "\x00")...)
			rest = rest[n:]
			if j := bytes.IndexByte(rest, 0); j >= 0 {
				plugin = string(rest[:j])
			} else if len(rest) > 0 {
				plugin = string(rest)
			}
		}
	}
	if caps&capProtocol41 == 0 {
		return errors.New("proxy: backend lacks CLIENT_PROTOCOL_41")
	}
	ourCaps := uint32(proxyCaps) & (caps | capConnectAttrs)
	secure := false
	switch {
	case bt.cfg != nil && caps&capSSL != 0:
		// SSLRequest: the handshake response's first 32 bytes, then TLS.
		ourCaps |= capSSL
		req := binary.LittleEndian.AppendUint32(nil, ourCaps)
		req = binary.LittleEndian.AppendUint32(req, 1<<24)
		req = append(req, handshakeCollation(cred))
		req = append(req, make([]byte, 23)...)
		if err := b.pc.writePacket(req); err != nil {
			return err
		}
		if err := b.pc.flush(); err != nil {
			return err
		}
		cfg := bt.cfg.Clone()
		if cfg.ServerName == "" {
			if host, _, err := net.SplitHostPort(addr); err == nil {
				cfg.ServerName = host
			}
		}
		tc := tls.Client(bufferedConn{b.pc.c, b.pc.r}, cfg)
		if err := tc.Handshake(); err != nil {
			return fmt.Errorf("proxy: TLS to %s: %w", addr, err)
		}
		seq, until := b.pc.seq, b.pc.until
		b.pc = newPacketConn(tc)
		b.pc.seq, b.pc.until = seq, until
		secure = true
	case bt.required:
		return fmt.Errorf("proxy: %s offers no TLS (backend TLS is required)", addr)
	}
	auth, plugin, err := authResponse(plugin, salt, cred)
	if err != nil {
		return err
	}
	resp := binary.LittleEndian.AppendUint32(nil, ourCaps)
	resp = binary.LittleEndian.AppendUint32(resp, 1<<24)
	resp = append(resp, handshakeCollation(cred))
	resp = append(resp, make([]byte, 23)...)
	resp = append(resp, cred.user...)
	resp = append(resp, 0)
	resp = appendLenencString(resp, string(auth))
	resp = append(resp, 0) // no database (CLIENT_CONNECT_WITH_DB): useDB sets it
	resp = append(resp, plugin...)
	resp = append(resp, 0)
	attrs := appendLenencString(appendLenencString(nil, "program_name"), "petrel-proxy")
	resp = appendLenencString(resp, string(attrs))
	if err := b.pc.writePacket(resp); err != nil {
		return err
	}
	if err := b.pc.flush(); err != nil {
		return err
	}
	return b.authReply(plugin, salt, cred, secure)
}

// handshakeCollation is the collation a backend connection asks for: the
// client's (0: utf8mb4_0900_ai_ci).
func handshakeCollation(cred credential) byte {
	if cred.collation == 0 {
		return 255
	}
	return cred.collation
}

// authResponse is the scramble for plugin; a plugin the credential cannot
// serve falls back to mysql_native_password (the server switches us).
func authResponse(plugin string, salt []byte, cred credential) ([]byte, string, error) {
	switch plugin {
	case "caching_sha2_password":
		if cred.hasPass {
			return scrambleSHA256(cred.password, salt), plugin, nil
		}
	}
	if cred.stage1 == nil && !cred.hasPass {
		return nil, "mysql_native_password", nil
	}
	return scrambleNative(cred, salt), "mysql_native_password", nil
}

func (b *backendConn) authReply(plugin string, salt []byte, cred credential, secure bool) error {
	for range 4 {
		p, err := b.pc.readPacket(0)
		if err != nil {
			return fmt.Errorf("proxy: login: %w", err)
		}
		switch {
		case isOK(p):
			return nil
		case isERR(p):
			return parseERR(p)
		case len(p) > 0 && p[0] == 0xfe: // AuthSwitchRequest
			rest := p[1:]
			j := bytes.IndexByte(rest, 0)
			if j < 0 {
				return errors.New("proxy: malformed auth switch")
			}
			plugin = string(rest[:j])
			salt = bytes.TrimRight(rest[j+1:], "\x00")
			var auth []byte
			switch plugin {
			case "mysql_native_password":
				if cred.stage1 != nil || cred.hasPass {
					auth = scrambleNative(cred, salt)
				}
			case "caching_sha2_password":
				if !cred.hasPass {
					return fmt.Errorf("proxy: the backend asks caching_sha2_password of %q, whose password the proxy does not hold", cred.user)
				}
				auth = scrambleSHA256(cred.password, salt)
			default:
				return fmt.Errorf("proxy: unsupported auth plugin %q", plugin)
			}
			if err := b.pc.writePacket(auth); err != nil {
				return err
			}
			if err := b.pc.flush(); err != nil {
				return err
			}
		case len(p) > 1 && p[0] == 0x01: // AuthMoreData (caching_sha2_password)
			switch p[1] {
			case 3: // fast auth succeeded; OK follows
			case 4: // full authentication: the password, in clear over TLS, else RSA-encrypted
				if !cred.hasPass {
					return fmt.Errorf("proxy: the backend asks the password of %q, which the proxy does not hold", cred.user)
				}
				if secure {
					if err := b.pc.writePacket(append([]byte(cred.password), 0)); err != nil {
						return err
					}
					if err := b.pc.flush(); err != nil {
						return err
					}
					continue
				}
				if err := b.pc.writePacket([]byte{2}); err != nil {
					return err
				}
				if err := b.pc.flush(); err != nil {
					return err
				}
				keyPkt, err := b.pc.readPacket(0)
				if err != nil {
					return err
				}
				if len(keyPkt) < 2 || keyPkt[0] != 0x01 {
					return errors.New("proxy: no public key from the backend")
				}
				enc, err := encryptPassword(cred.password, salt, keyPkt[1:])
				if err != nil {
					return err
				}
				if err := b.pc.writePacket(enc); err != nil {
					return err
				}
				if err := b.pc.flush(); err != nil {
					return err
				}
			default:
				return fmt.Errorf("proxy: unexpected auth data %d", p[1])
			}
		default:
			return errors.New("proxy: unexpected login packet")
		}
	}
	return errors.New("proxy: login did not finish")
}

// scrambleNative is mysql_native_password's answer:
// SHA1(password) XOR SHA1(salt + SHA1(SHA1(password))).
func scrambleNative(cred credential, salt []byte) []byte {
	s1 := cred.stage1
	if cred.hasPass {
		if cred.password == "" {
			return nil
		}
		h := sha1.Sum([]byte(cred.password))
		s1 = h[:]
	}
	s2 := sha1.Sum(s1)
	h := sha1.New()
	h.Write(salt[:min(20, len(salt))])
	h.Write(s2[:])
	x := h.Sum(nil)
	for i := range x {
		x[i] ^= s1[i]
	}
	return x
}

// scrambleSHA256 is caching_sha2_password's fast-auth answer:
// SHA256(password) XOR SHA256(SHA256(SHA256(password)) + salt).
func scrambleSHA256(password string, salt []byte) []byte {
	if password == "" {
		return nil
	}
	s1 := sha256.Sum256([]byte(password))
	s2 := sha256.Sum256(s1[:])
	h := sha256.New()
	h.Write(s2[:])
	h.Write(salt[:min(20, len(salt))])
	x := h.Sum(nil)
	for i := range x {
		x[i] ^= s1[i]
	}
	return x
}

func encryptPassword(password string, salt, pemKey []byte) ([]byte, error) {
	blk, _ := pem.Decode(pemKey)
	if blk == nil {
		return nil, errors.New("proxy: bad public key from the backend")
	}
	k, err := x509.ParsePKIXPublicKey(blk.Bytes)
	if err != nil {
		return nil, err
	}
	pub, ok := k.(*rsa.PublicKey)
	if !ok {
		return nil, errors.New("proxy: backend key is not RSA")
	}
	plain := append([]byte(password), 0)
	for i := range plain {
		plain[i] ^= salt[i%len(salt)]
	}
	return rsa.EncryptOAEP(sha1.New(), rand.Reader, pub, plain, nil)
}

// errBackendIO marks a failure of the backend connection itself (as
// opposed to an ERR packet it sent).
type errBackendIO struct{ err error }

func (e errBackendIO) Error() string { return "proxy: backend connection: " + e.err.Error() }
func (e errBackendIO) Unwrap() error { return e.err }

// query runs a statement and reads a text result (proxy's own queries:
// GTID waits, gtid_executed, USE). NULL is nil.
func (b *backendConn) query(q string, timeout time.Duration) (rows [][]*string, status uint16, err error) {
	b.pc.deadline(timeout)
	b.pc.seq = 0
	if err := b.pc.writePacket(append([]byte{comQuery}, q...)); err != nil {
		b.broken = true
		return nil, 0, errBackendIO{err}
	}
	if err := b.pc.flush(); err != nil {
		b.broken = true
		return nil, 0, errBackendIO{err}
	}
	read := func() ([]byte, error) {
		p, err := b.pc.readPacket(0)
		if err != nil {
			b.broken = true
			return nil, errBackendIO{err}
		}
		return p, nil
	}
	for {
		p, err := read()
		if err != nil {
			return nil, 0, err
		}
		switch {
		case isERR(p):
			return nil, 0, parseERR(p)
		case isOK(p):
			_, _, st, _ := okInfo(p)
			status = st
			if st&statusMoreResults != 0 {
				continue
			}
			return rows, status, nil
		}
		n, _, _, ok := readLenenc(p)
		if !ok {
			b.broken = true
			return nil, 0, errBackendIO{errors.New("malformed result")}
		}
		for i := uint64(0); i <= n; i++ { // column definitions and their EOF
			if _, err := read(); err != nil {
				return nil, 0, err
			}
		}
		for {
			p, err := read()
			if err != nil {
				return nil, 0, err
			}
			if isERR(p) {
				return nil, 0, parseERR(p)
			}
			if isEOF(p) {
				status = eofStatus(p)
				break
			}
			var row []*string
			for len(p) > 0 {
				l, sz, null, ok := readLenenc(p)
				if !ok || uint64(len(p)) < uint64(sz)+l {
					b.broken = true
					return nil, 0, errBackendIO{errors.New("malformed row")}
				}
				if null {
					row = append(row, nil)
				} else {
					s := string(p[sz : sz+int(l)])
					row = append(row, &s)
				}
				p = p[sz+int(l):]
			}
			rows = append(rows, row)
		}
		if status&statusMoreResults == 0 {
			return rows, status, nil
		}
	}
}

// useDB makes db the connection's database.
func (b *backendConn) useDB(db string, timeout time.Duration) error {
	if b.db == db {
		return nil
	}
	_, _, err := b.query("USE "+quoteIdent(db), timeout)
	if err != nil {
		return err
	}
	b.db = db
	return nil
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

func quoteString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
	return "'" + r.Replace(s) + "'"
}

// waitGTIDs runs WAIT_FOR_EXECUTED_GTID_SET on a replica: true when the
// set was applied within timeout.
func (b *backendConn) waitGTIDs(set string, timeout time.Duration) (bool, error) {
	q := fmt.Sprintf("SELECT WAIT_FOR_EXECUTED_GTID_SET(%s, %s)", quoteString(set), strconv.FormatFloat(timeout.Seconds(), 'f', 3, 64))
	rows, _, err := b.query(q, timeout+5*time.Second)
	if err != nil {
		return false, err
	}
	return len(rows) == 1 && len(rows[0]) == 1 && rows[0][0] != nil && *rows[0][0] == "0", nil
}
