package relay

import (
	"fmt"

	"petrel/internal/base"
	"petrel/internal/mysqlerr"
)

// Error is a refusal with the MySQL error number the receiver reports
// (Last_IO_Errno) and logs; it stops the receiver.
type Error struct {
	Num int
	Msg string
}

func (e *Error) Error() string { return e.Msg }

// Errno is the MySQL error number.
func (e *Error) Errno() int { return e.Num }

// CheckFollows decides whether a received transaction's GTID may be
// written after the GTIDs the log holds: not one it holds (a duplicate),
// and not one past a hole (its predecessor in its source's numbering is
// missing: a gap in what was received). Either refusal leaves the log as
// it is.
func CheckFollows(have *base.GTIDSet, g base.GTID) error {
	if have.Contains(g) {
		return &Error{Num: mysqlerr.ErRelayLogWriteFailure, Msg: fmt.Sprintf(
			"Relay log write failure: could not queue event from source: received GTID %s, which the relay's log already holds (gtid_executed %s)", g, have)}
	}
	if g.GNO > 1 && !have.Contains(base.GTID{SID: g.SID, GNO: g.GNO - 1}) {
		return &Error{Num: mysqlerr.ErRelayLogWriteFailure, Msg: fmt.Sprintf(
			"Relay log write failure: could not queue event from source: received GTID %s does not follow the relay's gtid_executed %s (missing %s:%d); the transaction was not written",
			g, have, g.SID, g.GNO-1)}
	}
	return nil
}

// CheckSource decides whether a source whose server_uuid is got may feed
// a relay that has followed known ("" = none yet, or RESET REPLICA since).
func CheckSource(known, got string) error {
	if known == "" || known == got {
		return nil
	}
	return &Error{Num: mysqlerr.ErReplicaFatalError, Msg: fmt.Sprintf(
		"Fatal error: the relay's source has server_uuid %s, but the relay has followed %s: a relay follows one source's binlog; run STOP REPLICA; RESET REPLICA to follow another", got, known)}
}

// clockMap gives a relayed transaction its last_committed in the relay's
// file. A source numbers transactions per binlog file (sequence_number
// from 1, last_committed naming an earlier one of the same file, 0 for
// none), and a replica's parallel applier orders by those numbers within a
// file, waiting for everything at a file boundary. The relay's files start
// and end elsewhere than its source's, so it renumbers: a segment is a run
// of transactions of one source file written contiguously into one relay
// file; within it, the source's dependencies map by a constant offset, and
// a dependency on anything before the segment becomes a dependency on
// everything before it in the relay file (never earlier, never less).
// Not safe for concurrent use.
type clockMap struct {
	open       bool
	file       string // the relay file of the segment
	srcStart   int64  // source sequence_number of the segment's first transaction
	relayStart int64  // and its relay sequence_number
	srcLast    int64  // source sequence_number of the latest transaction
	relayLast  int64  // and its relay sequence_number
}

// sourceFile says the source started (or resent the header of) a file: a
// new dump, or a rotation. The next transaction starts a segment.
func (c *clockMap) sourceFile() { c.open = false }

// lastCommitted maps one transaction: the source's last_committed and
// sequence_number, the relay file it goes to and its sequence number
// there, to its last_committed in the relay file.
func (c *clockMap) lastCommitted(srcLast, srcSeq int64, file string, seq int64) int64 {
	if !c.open || file != c.file || srcSeq != c.srcLast+1 || seq != c.relayLast+1 {
		*c = clockMap{open: true, file: file, srcStart: srcSeq, relayStart: seq}
	}
	c.srcLast, c.relayLast = srcSeq, seq
	switch {
	case srcLast >= srcSeq: // impossible from a source: keep the order
		return seq - 1
	case srcLast >= c.srcStart:
		return srcLast - c.srcStart + c.relayStart
	default:
		return c.relayStart - 1
	}
}
