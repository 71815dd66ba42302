package proxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	vtmysql "github.com/dolthub/vitess/go/mysql"

	"petrel/internal/mysqlerr"
)

// Clients log in with the backends' accounts. The proxy reads the
// primary's mysql.user (with its monitor account) and checks a
// mysql_native_password login as the server would: the client's answer
// to the proxy's salt, XORed with SHA1(salt + the stored SHA1(SHA1(pw))),
// is SHA1(pw) exactly when the password is right. That SHA1(pw) is what
// the proxy then logs in to every backend with, under any salt they send:
// it never learns or stores the password itself.

// account is one mysql.user row.
type account struct {
	user, host, plugin, authString string
}

// accounts caches the primary's accounts. Safe for concurrent use.
type accounts struct {
	db    *sql.DB       // under mu
	every time.Duration // loads at least this far apart

	loadMu sync.Mutex // one load at a time

	mu     sync.Mutex
	byUser map[string][]account
	loaded time.Time
}

// setDB makes db (the primary's, after a promotion) the accounts' source.
func (a *accounts) setDB(db *sql.DB) {
	a.mu.Lock()
	a.db = db
	a.mu.Unlock()
}

func (a *accounts) load(ctx context.Context) error {
	a.mu.Lock()
	db := a.db
	a.mu.Unlock()
	rows, err := db.QueryContext(ctx, "SELECT user, host, plugin, authentication_string FROM mysql.user")
	if err != nil {
		return fmt.Errorf("proxy: reading the primary's accounts: %w", err)
	}
	defer rows.Close()
	m := map[string][]account{}
	for rows.Next() {
		var ac account
		var plugin, auth sql.NullString
		if err := rows.Scan(&ac.user, &ac.host, &plugin, &auth); err != nil {
			return err
		}
		ac.plugin, ac.authString = plugin.String, auth.String
		m[ac.user] = append(m[ac.user], ac)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	a.mu.Lock()
	a.byUser, a.loaded = m, time.Now()
	a.mu.Unlock()
	return nil
}

// lookup finds user's account for a client at host. refresh reloads
// the accounts first (a miss or a failed check: the account may be new
// or changed): concurrent refreshes share one load, and loads are at
// least `every` apart (a stream of unknown users cannot flood the
// primary; they wait instead).
func (a *accounts) lookup(ctx context.Context, user, host string, refresh bool) (account, bool) {
	asked := time.Now()
	a.mu.Lock()
	stale := a.byUser == nil || refresh
	a.mu.Unlock()
	if stale {
		a.loadMu.Lock()
		a.mu.Lock()
		loaded := a.loaded
		a.mu.Unlock()
		if loaded.Before(asked) || loaded.IsZero() {
			if wait := a.every - time.Since(loaded); wait > 0 {
				select {
				case <-time.After(wait):
				case <-ctx.Done():
				}
			}
			_ = a.load(ctx)
		}
		a.loadMu.Unlock()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return matchAccount(a.byUser[user], host)
}

// matchAccount picks the most specific host entry matching host: an
// exact name, then localhost for a loopback client, then patterns with
// fewer wildcards.
func matchAccount(list []account, host string) (account, bool) {
	best, bestScore := account{}, -1
	ip := net.ParseIP(host)
	for _, ac := range list {
		score := -1
		switch {
		case ac.host == host:
			score = 1000
		case ac.host == "localhost" && ip != nil && ip.IsLoopback():
			score = 900
		case likeMatch(ac.host, host):
			score = 500 - strings.Count(ac.host, "%")*100 - strings.Count(ac.host, "_")
			score += len(ac.host)
		}
		if score > bestScore {
			best, bestScore = ac, score
		}
	}
	return best, bestScore >= 0
}

// likeMatch is SQL LIKE (% and _) over a host name, case-insensitive.
func likeMatch(pattern, s string) bool {
	pattern, s = strings.ToLower(pattern), strings.ToLower(s)
	for len(pattern) > 0 {
		switch pattern[0] {
		case '%':
			for i := 0; i <= len(s); i++ {
				if likeMatch(pattern[1:], s[i:]) {
					return true
				}
			}
			return false
		case '_':
			if s == "" {
				return false
			}
		default:
			if s == "" || s[0] != pattern[0] {
				return false
			}
		}
		pattern, s = pattern[1:], s[1:]
	}
	return s == ""
}

// checkNative verifies a mysql_native_password answer against a stored
// "*HEX" hash and returns SHA1(password) (nil for an empty password).
func checkNative(ac account, salt, answer []byte) ([]byte, bool) {
	if ac.authString == "" {
		return nil, len(answer) == 0
	}
	if len(answer) != sha1.Size || len(ac.authString) != 41 || ac.authString[0] != '*' {
		return nil, false
	}
	stage2, err := hex.DecodeString(ac.authString[1:])
	if err != nil {
		return nil, false
	}
	h := sha1.New()
	h.Write(salt)
	h.Write(stage2)
	x := h.Sum(nil)
	for i := range x {
		x[i] ^= answer[i]
	}
	got := sha1.Sum(x)
	return x, subtle.ConstantTimeCompare(got[:], stage2) == 1
}

// clientHello is what a client's handshake response says.
type clientHello struct {
	caps      uint32
	charset   byte
	user      string
	auth      []byte
	db        string
	plugin    string
	maxPacket uint32
	// sslRequest: the packet was an SSLRequest (the response follows
	// under TLS).
	sslRequest bool
}

func newSalt() ([]byte, error) {
	b := make([]byte, 20)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	for i := range b {
		b[i] = b[i]&0x7f | 1 // printable-safe, never NUL
		if b[i] == '$' {
			b[i] = '%'
		}
	}
	return b, nil
}

const serverVersion = "8.0.40-petrel-proxy"

func greeting(connID uint32, salt []byte, caps uint32) []byte {
	b := []byte{10}
	b = append(b, serverVersion...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint32(b, connID)
	b = append(b, salt[:8]...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(caps&0xffff))
	b = append(b, 255)
	b = binary.LittleEndian.AppendUint16(b, statusAutocommit)
	b = binary.LittleEndian.AppendUint16(b, uint16(caps>>16))
	b = append(b, 21)
	b = append(b, make([]byte, 10)...)
	b = append(b, salt[8:]...)
	b = append(b, 0)
	b = append(b, "mysql_native_password"...)
	return append(b, 0)
}

var errHandshake = errors.New("proxy: bad handshake")

func parseHello(p []byte) (clientHello, error) {
	var h clientHello
	if len(p) < 32 {
		return h, errHandshake
	}
	h.caps = binary.LittleEndian.Uint32(p)
	if h.caps&capProtocol41 == 0 {
		return h, errHandshake
	}
	if h.caps&capSSL != 0 && len(p) == 32 {
		h.sslRequest = true
		return h, nil
	}
	h.maxPacket = binary.LittleEndian.Uint32(p[4:])
	h.charset = p[8]
	rest := p[32:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return h, errHandshake
	}
	h.user, rest = string(rest[:i]), rest[i+1:]
	switch {
	case h.caps&capPluginAuthLenenc != 0:
		n, sz, _, ok := readLenenc(rest)
		if !ok || uint64(len(rest)) < uint64(sz)+n {
			return h, errHandshake
		}
		h.auth, rest = rest[sz:sz+int(n)], rest[sz+int(n):]
	case h.caps&capSecureConnection != 0:
		if len(rest) < 1 || len(rest) < 1+int(rest[0]) {
			return h, errHandshake
		}
		h.auth, rest = rest[1:1+int(rest[0])], rest[1+int(rest[0]):]
	default:
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return h, errHandshake
		}
		h.auth, rest = rest[:i], rest[i+1:]
	}
	if h.caps&capConnectWithDB != 0 && len(rest) > 0 {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return h, errHandshake
		}
		h.db, rest = string(rest[:i]), rest[i+1:]
	}
	if h.caps&capPluginAuth != 0 && len(rest) > 0 {
		if i := bytes.IndexByte(rest, 0); i >= 0 {
			h.plugin = string(rest[:i])
		} else {
			h.plugin = string(rest)
		}
	}
	return h, nil
}

func accessDenied(user, host string, withPassword bool) []byte {
	using := "NO"
	if withPassword {
		using = "YES"
	}
	return errPacket(mysqlerr.ErAccessDenied, mysqlerr.State(mysqlerr.ErAccessDenied),
		fmt.Sprintf("Access denied for user '%s'@'%s' (using password: %s)", user, host, using))
}

// caching_sha2_password accounts. The proxy learns the password once, in
// a full authentication (RSA-encrypted with the proxy's own key, as
// MySQL does without TLS), checks it against the stored SHA-256 crypt
// hash, and keeps it in memory: backends' caching_sha2_password logins
// need it. Later logins take the fast path against the cached
// SHA256(SHA256(password)), as the server's own cache does; a changed
// stored hash (ALTER USER) makes an entry stale.
type sha2Cache struct {
	mu      sync.Mutex
	key     *rsa.PrivateKey
	pubPEM  []byte
	entries map[string]sha2Entry // by user@host of the account
}

type sha2Entry struct {
	authString string
	password   string
	stage2     [32]byte
}

// keys returns the proxy's RSA key pair, made at first use.
func (c *sha2Cache) keys() (*rsa.PrivateKey, []byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.key == nil {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return nil, nil, err
		}
		der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
		if err != nil {
			return nil, nil, err
		}
		c.key, c.pubPEM = k, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	}
	return c.key, c.pubPEM, nil
}

func (c *sha2Cache) get(ac account) (sha2Entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[ac.user+"@"+ac.host]
	return e, ok && e.authString == ac.authString
}

func (c *sha2Cache) put(ac account, password string) {
	s1 := sha256.Sum256([]byte(password))
	c.mu.Lock()
	if c.entries == nil {
		c.entries = map[string]sha2Entry{}
	}
	c.entries[ac.user+"@"+ac.host] = sha2Entry{authString: ac.authString, password: password, stage2: sha256.Sum256(s1[:])}
	c.mu.Unlock()
}

// checkSha2Fast verifies a fast-auth scramble against SHA256(SHA256(pw)).
func checkSha2Fast(stage2 [32]byte, salt, scramble []byte) bool {
	if len(scramble) != sha256.Size {
		return false
	}
	h := sha256.New()
	h.Write(stage2[:])
	h.Write(salt)
	x := h.Sum(nil)
	for i := range x {
		x[i] ^= scramble[i]
	}
	got := sha256.Sum256(x)
	return subtle.ConstantTimeCompare(got[:], stage2[:]) == 1
}

// checkSha2Password checks a clear password against the account's stored
// caching_sha2_password hash ($A$005$salt+digest).
func checkSha2Password(ac account, password string) bool {
	digest, iterations, salt, _, err := vtmysql.DeserializeCachingSha2PasswordAuthString([]byte(ac.authString))
	if err != nil || digest != "SHA256" {
		return false
	}
	want, err := vtmysql.SerializeCachingSha2PasswordAuthString(password, salt, iterations)
	return err == nil && subtle.ConstantTimeCompare(want, []byte(ac.authString)) == 1
}

// sha2Login runs caching_sha2_password with the client (switching it to
// that method first unless it answered with it) and returns the
// credential on success. salt is the greeting's.
func (s *Server) sha2Login(pc *packetConn, h clientHello, ac account, salt []byte, secure bool) (credential, bool) {
	scramble := h.auth
	if h.plugin != "caching_sha2_password" {
		sw := append([]byte{0xfe}, "caching_sha2_password\x00"...)
		sw = append(append(sw, salt...), 0)
		if pc.writePacket(sw) != nil || pc.flush() != nil {
			return s.authFail("caching_sha2_password: client gone (auth switch)")
		}
		var err error
		if scramble, err = pc.readPacket(1024); err != nil {
			return s.authFail("caching_sha2_password: client gone (auth switch)")
		}
	}
	if len(scramble) == 0 || (len(scramble) == 1 && scramble[0] == 0) {
		// An empty password.
		if ac.authString != "" {
			return s.authFail("caching_sha2_password: empty password for an account with one")
		}
		return credential{user: h.user, hasPass: true}, true
	}
	if e, ok := s.sha2.get(ac); ok && checkSha2Fast(e.stage2, salt, scramble) {
		if pc.writePacket([]byte{0x01, 3}) != nil {
			return s.authFail("caching_sha2_password: client gone (fast auth)")
		}
		return credential{user: h.user, password: e.password, hasPass: true}, true
	}
	if secure {
		// Over TLS the client sends the password in clear.
		if pc.writePacket([]byte{0x01, 4}) != nil || pc.flush() != nil {
			return s.authFail("caching_sha2_password: client gone (full auth)")
		}
		data, err := pc.readPacket(4096)
		if err != nil || len(data) == 0 || data[len(data)-1] != 0 {
			return s.authFail("caching_sha2_password: malformed password")
		}
		return s.sha2Full(ac, h.user, string(data[:len(data)-1]))
	}
	key, pub, err := s.sha2.keys()
	if err != nil {
		return s.authFail("caching_sha2_password: no RSA key")
	}
	if pc.writePacket([]byte{0x01, 4}) != nil || pc.flush() != nil {
		return s.authFail("caching_sha2_password: client gone (full auth)")
	}
	data, err := pc.readPacket(4096)
	if err != nil {
		return s.authFail("caching_sha2_password: client gone (full auth)")
	}
	if len(data) == 1 && data[0] == 2 { // the client asks for the public key
		if pc.writePacket(append([]byte{0x01}, pub...)) != nil || pc.flush() != nil {
			return s.authFail("caching_sha2_password: client gone (public key)")
		}
		if data, err = pc.readPacket(4096); err != nil {
			return s.authFail("caching_sha2_password: client gone (public key)")
		}
	}
	plain, err := rsa.DecryptOAEP(sha1.New(), nil, key, data, nil)
	if err != nil {
		return s.authFail("caching_sha2_password: password not decryptable")
	}
	for i := range plain {
		plain[i] ^= salt[i%len(salt)]
	}
	if len(plain) == 0 || plain[len(plain)-1] != 0 {
		return s.authFail("caching_sha2_password: malformed password")
	}
	return s.sha2Full(ac, h.user, string(plain[:len(plain)-1]))
}

// sha2Full checks a full authentication's password and caches it.
func (s *Server) sha2Full(ac account, user, password string) (credential, bool) {
	if !checkSha2Password(ac, password) {
		return s.authFail("caching_sha2_password: wrong password")
	}
	s.sha2.put(ac, password)
	return credential{user: user, password: password, hasPass: true}, true
}

func (s *Server) authFail(why string) (credential, bool) {
	s.opts.Logger.Debug("proxy: login refused", "why", why)
	return credential{}, false
}
