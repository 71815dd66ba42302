// Package wire is the server's end of a MySQL client connection, under
// vitess, which runs the handshake and the command loop on it: the
// packet reader (frames, sequence ids, connect/wait/net timeouts,
// max_allowed_packet, packet memory), the compressed protocol, the TLS
// upgrade, gathered writes, checks of prepared-statement packets vitess
// would mishandle, the replication commands' parsing, OK packets' info,
// and the listener with its connection limits (Gate).
//
// Contract: it knows nothing of SQL, sessions or accounts. sqlengine
// gives it what it needs at construction (GateOptions: the settings
// reader, the account lookup, TLS, a packet rewrite) and through the
// Commands a vitess connection's ClientData holds once it authenticated.
// Errors it sends carry internal/mysqlerr's numbers. More:
// docs/design/connections.md.
package wire

import (
	"crypto/tls"
	"log/slog"

	"github.com/dolthub/vitess/go/mysql"
)

// Settings reads the server's global variables (sqlengine's registry).
type Settings interface {
	// Int is an integer (or boolean) variable, def when it is unset.
	Int(name string, def int64) int64
	// Bool is a boolean variable.
	Bool(name string) bool
	// String is a string variable, def when it is unset or empty.
	String(name, def string) string
}

// Commands is what the connection needs of its command loop once
// authenticated; sqlengine's per-connection state implements it and is
// the vitess connection's ClientData.
type Commands interface {
	// MySQLConn is vitess's connection (its prepared statements).
	MySQLConn() *mysql.Conn
	// Running reports a command running (the reads are data it asked
	// for, under net_read_timeout, not an idle wait).
	Running() bool
}

// commandsBox holds a Commands behind an atomic pointer.
type commandsBox struct{ Commands }

// GateOptions configure a Gate.
type GateOptions struct {
	Logger   *slog.Logger
	Settings Settings
	// Account maps a login to its account ("user@host pattern") and
	// whether it may take the reserved connection.
	Account func(user, host string) (string, bool)
	// TLS is the server's TLS configuration (nil: no TLS).
	TLS *tls.Config
	// RequiresSSL reports accounts that must log in over TLS (nil: none).
	RequiresSSL func(user, host string) bool
	// Rewrite, when set, rewrites a command packet before vitess parses it.
	Rewrite func([]byte) []byte
}
