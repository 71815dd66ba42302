package replica

import (
	"errors"

	"petrel/internal/base"
)

// Sink takes the received binlog in place of the relay log and the
// applier: a relay (`petrel relay`, repl/relay) keeps it in its own binary
// log for downstream replicas. With a Sink, the receiver always asks its
// source by GTID, START REPLICA starts the receiver only, and RESET
// REPLICA resets the Sink too.
type Sink interface {
	// Connected checks the source's server_uuid at each connection; an
	// error stops the receiver.
	Connected(sourceUUID string) error
	// Header sees an event outside transactions (FORMAT_DESCRIPTION,
	// ROTATE, PREVIOUS_GTIDS, STOP).
	Header(ev []byte) error
	// Txn keeps one whole transaction (GTID event first, checksums
	// verified) or refuses it, keeping nothing.
	Txn(events [][]byte, gtid base.GTID) error
	// Sync makes what Txn kept durable, always with force (a semi-sync
	// acknowledgement at RELAY_SYNC), else as the Sink's own settings say.
	// It runs at the end of each burst, before its acknowledgement.
	Sync(force bool) error
	// Reset is RESET REPLICA's part.
	Reset() error
}

// sinkError is a Sink's refusal as the receiver reports it: its MySQL
// number when it has one (Errno), else a relay log write failure; either
// stops the receiver.
func sinkError(err error) *ioError {
	var n interface{ Errno() int }
	if errors.As(err, &n) {
		return ioErrorf(n.Errno(), true, "%v", err)
	}
	return ioErrorf(ErrRelayLogFailure, true, "relay: binary log write failed: %v", err)
}

// keepHeader files an event outside transactions.
func (r *Replica) keepHeader(ev []byte) error {
	if r.opts.Sink != nil {
		if err := r.opts.Sink.Header(ev); err != nil {
			return sinkError(err)
		}
		return nil
	}
	return r.relay.append([][]byte{ev}, nil)
}

// keepTxn files a whole transaction.
func (r *Replica) keepTxn(events [][]byte, gtid base.GTID) error {
	if r.opts.Sink != nil {
		if err := r.opts.Sink.Txn(events, gtid); err != nil {
			return sinkError(err)
		}
		return nil
	}
	if err := r.relay.append(events, &gtid); err != nil {
		return ioErrorf(ErrRelayLogFailure, true, "relay log write failed: %v", err)
	}
	return nil
}
