package node

import (
	"context"

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

func (refuseWrites) Append(*storage.CommitRecord) error {
	return base.Errorf(base.ClassReadOnly, "The MySQL server is running with the --super-read-only option so it cannot execute this statement (a relay applies nothing: it serves its source's binlog)")
}
func (refuseWrites) Wait(context.Context, *storage.CommitRecord) error { return nil }
func (refuseWrites) Durable() bool                                     { return false }

// relaySink builds the receiver's sink of a relay (nil otherwise).
func (n *Node) relaySink() (*relay.Sink, error) {
	if !n.opts.Relay {
		return nil, nil
	}
	return relay.New(relay.Options{Log: n.binlog, Dir: n.opts.Datadir, Logger: n.opts.Logger})
}
