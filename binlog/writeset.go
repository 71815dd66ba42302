package binlog

import (
	"fmt"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/dolthub/go-mysql-server/sql"

	"petrel/storage"
)

// Dependency tracking: the last_committed / sequence_number pair of every
// GTID event, which tells a parallel replica (MySQL's LOGICAL_CLOCK
// applier, Petrel's) which transactions may be applied at the same time:
// a transaction may start once every transaction numbered up to its
// last_committed has committed. sequence_number counts the transactions of
// a binlog file from 1; last_committed 0 means "after everything before,
// in this file or an earlier one".
//
// binlog_transaction_dependency_tracking chooses how last_committed is
// found, as in MySQL 8.0:
//
//   - COMMIT_ORDER: the newest transaction already durable when this one
//     was appended (transactions of one commit group share it): they held
//     their row locks at the same time, so they do not conflict.
//   - WRITESET (default; MySQL 8.4's only behaviour): the newest earlier
//     transaction that wrote a row with an equal primary or unique key,
//     never later than COMMIT_ORDER's answer. A history maps each key's
//     hash to the last transaction that wrote it, bounded by
//     binlog_transaction_dependency_history_size (25000): when it would
//     overflow it is cleared, and every later transaction depends on at
//     least the one that cleared it.
//   - WRITESET_SESSION: WRITESET, and never before the same session's
//     previous transaction.
//
// Fall-backs, as MySQL's: DDL (and any transaction without row changes)
// keeps the commit-order value and clears the history, so it is a barrier
// both ways; a change to a table without a primary key keeps the
// commit-order value (its rows have no key to compare) but its other keys
// still enter the history. A change to a table in a foreign key (either
// side) keeps the commit-order value too, as MySQL's does: a child row
// and the parent row it needs have different keys. The history is cleared at every new
// binlog file, where numbering starts again.
//
// The hash of a key is XXH64 over Petrel's storage key of the unique
// index entry (table and index ids, then the values in the memcomparable
// encoding that agrees with the column's collation), so 'a' and 'A'
// collide under a case-insensitive collation, as MySQL's sort keys do.
// Only equality matters to a replica: MySQL replicas read last_committed,
// not the hashes.

// Tracking modes (binlog_transaction_dependency_tracking).
const (
	TrackCommitOrder     = "COMMIT_ORDER"
	TrackWriteset        = "WRITESET"
	TrackWritesetSession = "WRITESET_SESSION"
)

// DefaultHistorySize is binlog_transaction_dependency_history_size's default.
const DefaultHistorySize = 25000

// writeset is what dependency tracking needs of one transaction,
// extracted before its commit turn (Prepare).
type writeset struct {
	hashes []uint64
	// missingKeys: a change to a table without a primary key.
	missingKeys bool
	// noRows: DDL or a transaction without row changes: cannot use
	// write sets.
	noRows bool
	// session is the committing session (0: none, a replicated or
	// internal transaction).
	session uint32
}

// extractWriteset hashes the unique keys of every row image a commit
// record changes (an UPDATE's before and after images, an INSERT's after,
// a DELETE's before).
func extractWriteset(rec *storage.CommitRecord) (writeset, error) {
	ws := writeset{session: rec.Session}
	if len(rec.Queries) > 0 || len(rec.Changes) == 0 {
		ws.noRows = true
		return ws, nil
	}
	k := newKeyHasher(2 * len(rec.Changes))
	for _, c := range rec.Changes {
		if err := k.rows(c.Table, c.Before, c.After); err != nil {
			return ws, err
		}
	}
	ws.hashes, ws.missingKeys = k.hashes, k.missing
	return ws, nil
}

// keyHasher collects the distinct hashes of row images' unique keys.
type keyHasher struct {
	seen    map[uint64]struct{}
	hashes  []uint64
	missing bool
}

func newKeyHasher(n int) *keyHasher {
	return &keyHasher{seen: make(map[uint64]struct{}, n)}
}

func (k *keyHasher) add(key []byte) {
	h := xxhash.Sum64(key)
	if _, dup := k.seen[h]; !dup {
		k.seen[h] = struct{}{}
		k.hashes = append(k.hashes, h)
	}
}

func (k *keyHasher) rows(tb *storage.Table, rows ...sql.Row) error {
	for _, row := range rows {
		if row == nil {
			continue
		}
		missing, err := tb.UniqueKeys(row, k.add)
		if err != nil {
			return fmt.Errorf("binlog: write set of %s.%s: %w", tb.Def.Database, tb.Def.Name, err)
		}
		k.missing = k.missing || missing || tb.InForeignKey()
	}
	return nil
}

// Footprint is what a replica's scheduler needs of a transaction's row
// events.
type Footprint struct {
	DBs []string // the databases it changes, in first-seen order
	// Hashes is its write set (with keys): the same hashes the source's
	// extraction makes from the same row images.
	Hashes []uint64
	// NoKeys: a table without a primary key, or one the replica does not
	// have: the write set cannot be trusted, and its rows are found by
	// content (a scan that row locks do not order).
	NoKeys bool
}

// RowsFootprint reads a transaction's row events (without the GTID
// event): the databases they change and, when keys is set, the write set
// of their before and after images, hashed as the source's dependency
// tracking hashes them (a replica schedules on it when the source's
// intervals say nothing).
func RowsFootprint(e *storage.Engine, events [][]byte, keys bool) (Footprint, error) {
	var fp Footprint
	maps := map[uint64]*TableMap{}
	dbs := map[string]bool{}
	k := newKeyHasher(len(events))
	for _, ev := range events {
		typ := ev[4]
		switch {
		case typ == TableMapEvent:
			tm, err := ParseTableMap(Body(ev))
			if err != nil {
				return fp, err
			}
			maps[tm.TableID] = tm
			if tb := e.Catalog().Table(tm.Database, tm.Table); tb == nil || tb.Hidden {
				fp.NoKeys = true
			}
			if !dbs[tm.Database] {
				dbs[tm.Database] = true
				fp.DBs = append(fp.DBs, tm.Database)
			}
		case keys && IsRowsEvent(typ):
			body := Body(ev)
			if len(body) < 6 {
				return fp, corrupt("rows event of %d bytes", len(body))
			}
			tm := maps[readTableID(body)]
			if tm == nil {
				return fp, corrupt("rows event for unmapped table id %d", readTableID(body))
			}
			tb := e.Catalog().Table(tm.Database, tm.Table)
			if tb == nil {
				fp.NoKeys = true
				continue
			}
			types := make([]sql.Type, len(tb.Schema))
			for i, c := range tb.Schema {
				types[i] = c.Type
			}
			re, err := ParseRows(typ, body, tm, types)
			if err != nil {
				return fp, err
			}
			if err := k.rows(tb, re.Before...); err != nil {
				return fp, err
			}
			if err := k.rows(tb, re.After...); err != nil {
				return fp, err
			}
		}
	}
	if keys {
		fp.Hashes = k.hashes
		if fp.Hashes == nil {
			fp.Hashes = []uint64{}
		}
		fp.NoKeys = fp.NoKeys || k.missing
	}
	return fp, nil
}

// ParseTracking validates a binlog_transaction_dependency_tracking value.
func ParseTracking(s string) (string, error) {
	switch u := strings.ToUpper(strings.TrimSpace(s)); u {
	case TrackCommitOrder, TrackWriteset, TrackWritesetSession:
		return u, nil
	}
	return "", fmt.Errorf("binlog: binlog_transaction_dependency_tracking: unknown value %q (COMMIT_ORDER, WRITESET or WRITESET_SESSION)", s)
}

// depTracker computes last_committed. A pure core: the log calls it in
// commit order under its lock; no clock, no I/O.
type depTracker struct {
	mode        string
	historySize int
	// history maps a key hash to the sequence number of the last
	// transaction that wrote it; start stands for everything forgotten.
	history map[uint64]int64
	start   int64
	// sessions maps a session to its last transaction's sequence number
	// (WRITESET_SESSION), in this file.
	sessions map[uint32]int64
}

func newDepTracker(mode string, historySize int) *depTracker {
	d := &depTracker{}
	d.setMode(mode, historySize)
	d.reset(1)
	return d
}

// reset forgets everything, leaving start as the floor of later
// transactions' last_committed: at a new file (numbering starts again,
// start 1: the file's first transaction) and when the mode changes, as
// MySQL does.
func (d *depTracker) reset(start int64) {
	d.history = make(map[uint64]int64)
	d.sessions = make(map[uint32]int64)
	d.start = start
}

// setMode changes the tracking mode (and forgets the history).
func (d *depTracker) setMode(mode string, historySize int) {
	if historySize < 1 {
		historySize = 1
	}
	if mode != d.mode {
		d.reset(d.start)
	}
	d.mode, d.historySize = mode, historySize
}

// lastCommitted returns the transaction numbered seq's last_committed,
// given commitOrder, COMMIT_ORDER's value, and records the transaction.
func (d *depTracker) lastCommitted(seq, commitOrder int64, ws *writeset) int64 {
	lc := commitOrder
	if d.mode == TrackCommitOrder || ws == nil {
		return lc
	}
	usable := !ws.noRows && (len(ws.hashes) > 0 || ws.missingKeys)
	overflow := false
	if usable {
		overflow = len(d.history)+len(ws.hashes) > d.historySize
		parent := d.start
		for _, h := range ws.hashes {
			if p, ok := d.history[h]; ok {
				if p > parent && p < seq {
					parent = p
				}
				d.history[h] = seq
			} else if !overflow {
				d.history[h] = seq
			}
		}
		if !ws.missingKeys && parent < lc {
			lc = parent
		}
	}
	if overflow || !usable {
		d.reset(seq)
	}
	if d.mode == TrackWritesetSession && ws.session != 0 {
		if p := d.sessions[ws.session]; p != 0 && p < seq && p > lc {
			lc = p
		}
		d.sessions[ws.session] = seq
		if len(d.sessions) > d.historySize {
			// Bounded like the history: forgetting sessions only loses
			// parallelism the history still guards.
			d.sessions = map[uint32]int64{ws.session: seq}
			d.start = max(d.start, seq)
		}
	}
	return lc
}
