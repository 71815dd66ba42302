package sqlengine

import (
	"net"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/auth"
	"petrel/sqlengine/sqlerr"
	"petrel/sqlengine/wire"
)

var _ wire.UserChanger = (*connState)(nil)

// ChangeUser implements wire.UserChanger: COM_CHANGE_USER. The account
// of the request's user and the connection's host must take the
// scramble the client sent (mysql_native_password over the wire's
// salt; an account without a password takes an empty one), else 1045.
// The session is then replaced as COM_RESET_CONNECTION replaces it (an
// open transaction rolled back, temporary tables, prepared statements,
// user and session variables gone), under the new account, with the
// request's database current (none for ""; 1049 for a missing one).
// An account whose password only caching_sha2_password can check (a
// SHA-256 hash) is refused: the wire asks for mysql_native_password.
func (cs *connState) ChangeUser(req wire.ChangeUserRequest) (uint16, error) {
	h := cs.h
	if h == nil {
		return 0, mysqlerr.New(mysqlerr.ErUnknownCom, "Unknown command")
	}
	c := cs.c
	addr := c.RemoteAddr()
	denied := auth.AccessDenied(req.User, addr, len(req.Scramble) > 0)
	udb := h.e.gms.Analyzer.Catalog.MySQLDb
	if !udb.Enabled() {
		return 0, denied
	}
	rd := udb.Reader()
	u := udb.GetUser(rd, req.User, connHost(addr), false)
	rd.Close()
	if u == nil || u.Locked {
		return 0, denied
	}
	switch {
	case u.AuthString == "":
		if len(req.Scramble) > 0 {
			return 0, denied
		}
	case u.Plugin == string(mysql.MysqlNativePassword):
		hash, err := mysql.DecodeMysqlNativePasswordHex(u.AuthString)
		if err != nil || !mysql.VerifyHashedMysqlNativePassword(req.Scramble, req.Salt, hash) {
			return 0, denied
		}
	default:
		return 0, denied
	}
	if req.DB != "" && !h.e.databaseExists(req.DB) {
		return 0, mysqlerr.New(mysqlerr.ErBadDB, "Unknown database '%s'", req.DB)
	}
	if old := h.e.session(c.ConnectionID); old != nil {
		// The reset keeps the current database: the new session starts
		// with none, then takes the request's.
		old.SetCurrentDatabase("")
	}
	c.User = req.User
	c.UserData = sql.MysqlConnectionUser{User: u.User, Host: u.Host}
	if err := h.ComResetConnection(c); err != nil {
		return 0, sqlerr.ClientError(err)
	}
	if req.DB != "" {
		// As USE: the account needs a privilege in the database (1044).
		if err := h.Handler.ComInitDB(c, req.DB); err != nil {
			return 0, sqlerr.ClientError(err)
		}
	}
	s := h.e.session(c.ConnectionID)
	if s == nil {
		return 0, mysqlerr.New(mysqlerr.ErUnknown, "sqlengine: no session after COM_CHANGE_USER")
	}
	return sessionStatus(s), nil
}

// connHost is the host an account is matched against for a client at
// addr: localhost over a Unix socket, else the address.
func connHost(addr net.Addr) string {
	if addr.Network() == "unix" {
		return "localhost"
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return host
}

// databaseExists reports whether database name exists (case as the
// catalog compares names).
func (e *Engine) databaseExists(name string) bool {
	if strings.EqualFold(name, "information_schema") || strings.EqualFold(name, "mysql") || strings.EqualFold(name, "performance_schema") {
		return true
	}
	return e.store.Catalog().Database(name) != nil
}
