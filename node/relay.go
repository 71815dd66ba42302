package node

import (
	"context"
	"time"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/base"
	"petrel/repl/relay"
	"petrel/storage"
)

// The relay role (`petrel relay`, Options.Relay): the receiver keeps what
// its source sends in this server's binary log (repl/relay), the dump
// threads serve it downstream, and storage holds nothing but the server's
// own accounts: clients cannot write (super_read_only, and a commit sink
// that refuses every transaction after start-up), and the binary log is
// not storage's WAL (no recovery replays the relayed transactions into
// it).

// relayVariables makes a relay read-only for every client, as
// super_read_only does (ER_OPTION_PREVENTS_STATEMENT, 1290).
func relayVariables(vars map[string]string) {
	vars["read_only"] = "ON"
	vars["super_read_only"] = "ON"
}

// refuseWrites is a relay's storage commit sink: even with super_read_only
// turned off by SET GLOBAL, no transaction commits (nothing written).
type refuseWrites struct{}

func (refuseWrites) Append(rec *storage.CommitRecord) error {
	if rec.Origin != nil {
		// An account statement the relay applies from its source
		// (relayAccount): already in the relay's log, as relayed.
		return nil
	}
	return base.Errorf(base.ClassReadOnly, "The MySQL server is running with the --super-read-only option so it cannot execute this statement (a relay applies nothing: it serves its source's binlog)")
}
func (refuseWrites) Wait(context.Context, *storage.CommitRecord) error { return nil }
func (refuseWrites) Durable() bool                                     { return false }

// relaySink builds the receiver's sink of a relay (nil otherwise).
func (n *Node) relaySink() (*relay.Sink, error) {
	if !n.opts.Relay {
		return nil, nil
	}
	return relay.New(relay.Options{Log: n.binlog, Dir: n.opts.Datadir, Logger: n.opts.Logger, ApplyQuery: n.relayAccount})
}

// relayAccount applies a relayed statement to the relay's own accounts
// if it is an account statement (CREATE/ALTER/DROP/RENAME USER, GRANT,
// REVOKE, roles), as a replica applies it; anything else a relay only
// relays. The statement is recognised by the parser, not by its text.
func (n *Node) relayAccount(db, query string, g base.GTID) error {
	stmt, err := ast.Parse(query)
	if err != nil || !isAccountStatement(stmt) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), relayAccountTimeout)
	defer cancel()
	return n.sql.ExecReplicated(ctx, db, query, false, storage.Origin{GTID: g, CommitTime: n.opts.Clock.Now()})
}

// relayAccountTimeout bounds the application of one account statement.
const relayAccountTimeout = 30 * time.Second

// isAccountStatement reports whether stmt changes accounts or privileges.
func isAccountStatement(stmt ast.Statement) bool {
	switch s := stmt.(type) {
	case *ast.CreateUser, *ast.DropUser, *ast.RenameUser, *ast.GrantPrivilege, *ast.RevokePrivilege, *ast.RevokeAllPrivileges,
		*ast.GrantRole, *ast.RevokeRole, *ast.CreateRole, *ast.DropRole, *ast.GrantProxy, *ast.RevokeProxy:
		return true
	case *ast.DDL:
		return s.Action == ast.AlterStr && s.User.Name != "" // ALTER USER
	}
	return false
}
