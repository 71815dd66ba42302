package auth

import (
	"context"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"net"
	"sync"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/vitess/go/mysql"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/wire"
)

// Sha2 is caching_sha2_password, as MySQL 8 runs it:
//
//   - fast authentication: the client's scramble is checked against the
//     cache of SHA256(SHA256(password)) of accounts that logged in before
//     (AuthMoreData 0x03, then OK);
//   - full authentication otherwise (AuthMoreData 0x04): over TLS the
//     client sends the password in clear; without TLS it asks for the
//     server's RSA public key (0x02), and sends the password XORed with
//     the salt and encrypted with it (RSA-OAEP, SHA-1). The password is
//     checked against the stored SHA-256 crypt hash, and cached.
//
// A cache entry holds the stored hash it was made under: a changed
// password (ALTER USER, SET PASSWORD, a replicated change) makes it
// stale without an invalidation step. Safe for concurrent use.
//
// vitess's own method cannot serve here: it assumes TLS is vitess's
// (TLS is wire.Conn's, tlsconn.go) and writes packets through vitess's
// private sequence counter; this one writes its extra packets through
// wire.Conn, which keeps the sequence ids straight.
type Sha2 struct {
	// users is the server's account table.
	users func() *mysql_db.MySQLDb
	keys  *wire.RSAKeys

	// fast, full count logins by each path (Petrel_sha2_fast_auths,
	// Petrel_sha2_full_auths).
	Fast, Full atomic.Uint64

	mu    sync.Mutex
	cache map[mysql_db.UserPrimaryKey]sha2Cached
}

// Flush empties the cache (FLUSH PRIVILEGES, as in MySQL).
func (a *Sha2) Flush() {
	a.mu.Lock()
	clear(a.cache)
	a.mu.Unlock()
}

type sha2Cached struct {
	authString string
	stage2     [32]byte
}

// caching_sha2_password's AuthMoreData codes.
const (
	sha2RequestPublicKey = 2
	sha2FastAuthOK       = 3
	sha2FullAuth         = 4
)

func NewSha2(users func() *mysql_db.MySQLDb, keys *wire.RSAKeys) *Sha2 {
	return &Sha2{users: users, keys: keys, cache: map[mysql_db.UserPrimaryKey]sha2Cached{}}
}

var _ mysql.AuthMethod = (*Sha2)(nil)

func (a *Sha2) Name() mysql.AuthMethodDescription { return mysql.CachingSha2Password }

// HandleUser: accounts whose plugin is caching_sha2_password.
func (a *Sha2) HandleUser(c *mysql.Conn, user string) bool {
	u := a.Lookup(user, c.RemoteAddr())
	return u != nil && u.Plugin == string(mysql.CachingSha2Password)
}

// AllowClearTextWithoutTLS: the password crosses a plaintext connection
// only RSA-encrypted.
func (a *Sha2) AllowClearTextWithoutTLS() bool { return true }

func (a *Sha2) AuthPluginData() ([]byte, error) {
	salt, err := mysql.NewSalt()
	if err != nil {
		return nil, err
	}
	return append(salt, 0), nil
}

func (a *Sha2) Lookup(user string, addr net.Addr) *mysql_db.User {
	udb := a.users()
	if !udb.Enabled() {
		return nil
	}
	rd := udb.Reader()
	defer rd.Close()
	return udb.GetUser(rd, user, hostOf(addr), false)
}

func hostOf(addr net.Addr) string {
	if addr.Network() == "unix" {
		return "localhost"
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return host
}

// AccessDenied is MySQL's ER_ACCESS_DENIED_ERROR for a login.
func AccessDenied(user string, addr net.Addr, withPassword bool) error {
	using := "NO"
	if withPassword {
		using = "YES"
	}
	return mysqlerr.New(mysqlerr.ErAccessDenied, "Access denied for user '%s'@'%s' (using password: %s)", user, hostOf(addr), using)
}

func (a *Sha2) HandleAuthPluginData(c *mysql.Conn, user string, serverData, clientData []byte, addr net.Addr) (mysql.Getter, error) {
	cc, ok := c.Conn.(*wire.Conn)
	if !ok || len(serverData) < 20 {
		return nil, AccessDenied(user, addr, len(clientData) > 0)
	}
	salt := serverData[:20]
	empty := len(clientData) == 0 || (len(clientData) == 1 && clientData[0] == 0)
	u := a.Lookup(user, addr)
	if u == nil || u.Locked {
		return nil, AccessDenied(user, addr, !empty)
	}
	ok2 := sql.MysqlConnectionUser{User: u.User, Host: u.Host}
	if u.AuthString == "" || empty {
		if u.AuthString == "" && empty {
			return ok2, nil
		}
		return nil, AccessDenied(user, addr, !empty)
	}
	key := mysql_db.UserPrimaryKey{User: u.User, Host: u.Host}
	a.mu.Lock()
	hit, cached := a.cache[key]
	a.mu.Unlock()
	if cached && hit.authString == u.AuthString && mysql.VerifyHashedCachingSha2Password(clientData, salt, hit.stage2[:]) {
		if err := cc.WriteAuthPacket([]byte{mysql.AuthMoreDataPacket, sha2FastAuthOK}); err != nil {
			return nil, err
		}
		a.Fast.Add(1)
		return ok2, nil
	}
	if err := cc.WriteAuthPacket([]byte{mysql.AuthMoreDataPacket, sha2FullAuth}); err != nil {
		return nil, err
	}
	password, err := a.readPassword(c, cc, salt)
	if err != nil {
		return nil, err
	}
	if password == nil {
		return nil, AccessDenied(user, addr, true)
	}
	digest, iterations, storedSalt, _, err := mysql.DeserializeCachingSha2PasswordAuthString([]byte(u.AuthString))
	if err != nil || digest != "SHA256" {
		return nil, AccessDenied(user, addr, true)
	}
	want, err := mysql.SerializeCachingSha2PasswordAuthString(string(password), storedSalt, iterations)
	if err != nil || string(want) != u.AuthString {
		return nil, AccessDenied(user, addr, true)
	}
	s1 := sha256.Sum256(password)
	a.mu.Lock()
	a.cache[key] = sha2Cached{authString: u.AuthString, stage2: sha256.Sum256(s1[:])}
	a.mu.Unlock()
	a.Full.Add(1)
	return ok2, nil
}

// readPassword reads the password of a full authentication: in clear
// over TLS, RSA-encrypted otherwise (sending the public key first if the
// client asks for it). nil: the client sent something unusable.
func (a *Sha2) readPassword(c *mysql.Conn, cc *wire.Conn, salt []byte) ([]byte, error) {
	data, err := c.ReadPacket(context.Background())
	if err != nil {
		return nil, err
	}
	if cc.TLSState() != nil {
		if len(data) == 0 || data[len(data)-1] != 0 {
			return nil, nil
		}
		return append([]byte(nil), data[:len(data)-1]...), nil
	}
	if a.keys == nil {
		return nil, nil
	}
	if len(data) == 1 && data[0] == sha2RequestPublicKey {
		if err := cc.WriteAuthPacket(append([]byte{mysql.AuthMoreDataPacket}, a.keys.PublicPEM...)); err != nil {
			return nil, err
		}
		if data, err = c.ReadPacket(context.Background()); err != nil {
			return nil, err
		}
	}
	plain, err := rsa.DecryptOAEP(sha1.New(), nil, a.keys.Private, data, nil)
	if err != nil {
		return nil, nil
	}
	for i := range plain {
		plain[i] ^= salt[i%len(salt)]
	}
	if len(plain) == 0 || plain[len(plain)-1] != 0 {
		return nil, nil
	}
	return plain[:len(plain)-1], nil
}
