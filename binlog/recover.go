package binlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/dolthub/go-mysql-server/sql"

	"petrel/internal/base"
	"petrel/storage"
)

// Txn is one transaction read back from a file.
type Txn struct {
	File       string
	Start, End uint64
	GTID       GTIDInfo
	Events     [][]byte // GTID event first
	DDL        bool
}

// txnReader groups a file's events into transactions.
type txnReader struct {
	r    *Reader
	file string
}

// TxnReader groups a binlog or relay log file's events into transactions.
type TxnReader struct{ tr txnReader }

// NewTxnReader reads transactions from r (file names the file in errors).
func NewTxnReader(r *Reader, file string) *TxnReader {
	return &TxnReader{tr: txnReader{r: r, file: file}}
}

// Next returns the next complete transaction, io.EOF at the end of the
// file, or io.ErrUnexpectedEOF when the file ends inside a transaction (the
// caller seeks back to the transaction's start to retry).
func (t *TxnReader) Next() (*Txn, error) { return t.tr.next() }

// next returns the next complete transaction, io.EOF at the end, or
// io.ErrUnexpectedEOF when the file ends inside a transaction.
func (tr *txnReader) next() (*Txn, error) {
	var cur *Txn
	inTxn := false
	for {
		ev, at, err := tr.r.Next()
		if err != nil {
			if err == io.EOF && cur != nil {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		switch ev[4] {
		case GTIDEvent:
			g, err := ParseGTID(Body(ev))
			if err != nil {
				return nil, fmt.Errorf("%s at offset %d: %w", tr.file, at, err)
			}
			cur = &Txn{File: tr.file, Start: at, GTID: g, Events: [][]byte{ev}}
			inTxn = false
			continue
		case FormatDescriptionEvent, PreviousGTIDsEvent, RotateEvent, StopEvent, HeartbeatEvent:
			continue
		}
		if cur == nil {
			continue // events outside a GTID transaction (not Petrel's)
		}
		end := at + uint64(len(ev))
		if ev[4] == TransactionPayloadEvent {
			inner, err := ExpandPayload(ev)
			if err != nil {
				return nil, fmt.Errorf("%s at offset %d: %w", tr.file, at, err)
			}
			cur.Events = append(cur.Events, inner...)
			cur.End = end
			return cur, nil
		}
		cur.Events = append(cur.Events, ev)
		switch ev[4] {
		case QueryEvent:
			q, err := ParseQuery(Body(ev))
			if err != nil {
				return nil, fmt.Errorf("%s at offset %d: %w", tr.file, at, err)
			}
			if q.Query == "BEGIN" {
				inTxn = true
			} else if !inTxn {
				cur.End, cur.DDL = end, true
				return cur, nil
			}
		case XIDEvent:
			cur.End = end
			return cur, nil
		}
	}
}

// recoverStorage replays into storage every transaction after storage's
// last applied position (sr, nil if storage has none). A DDL transaction
// there was never acknowledged (storage applies DDL synchronously before
// the client's OK), so the log is truncated at it instead. Called by Open
// before the new file starts.
func (l *Log) recoverStorage(e *storage.Engine, sr *sinkRecord) error {
	startFile, startPos := 0, uint64(0)
	ownMax := int64(0) // this server's highest GNO up to the replayed transaction
	if sr != nil {
		startFile = -1
		for i, f := range l.files {
			if f == sr.pos.File {
				startFile, startPos = i, sr.pos.Pos
			}
		}
		switch {
		case startFile >= 0:
		case len(l.files) > 0 && fileNum(sr.pos.File) < fileNum(l.files[0]):
			// Storage's last transaction is in a purged file (PURGE
			// flushed storage, then no commit came before the rotation):
			// every file left may hold transactions it lacks.
			startFile, startPos = 0, 0
		default:
			// Storage is past every file we hold (they were reset after
			// it applied them): nothing to replay.
			return nil
		}
		ownMax = sr.ownMax
	}
	// Replayed rows may reach sstables at once (when this log is storage's
	// only WAL): the log they come from must be durable first, and after a
	// process crash its tail may sit only in the page cache.
	if len(l.files) > 0 {
		if err := syncPath(l.path(l.files[len(l.files)-1])); err != nil {
			return err
		}
	}
	replayed := 0
	for i := startFile; i < len(l.files); i++ {
		name := l.files[i]
		h, err := ReadFileHeader(l.path(name))
		if err != nil {
			return err
		}
		ownMax = max(ownMax, h.PreviousGTIDs.Last(l.opts.ServerUUID))
		r, err := OpenReader(l.path(name))
		if err != nil {
			return err
		}
		if i == startFile && startPos > 0 {
			st, _ := os.Stat(l.path(name))
			if st != nil && uint64(st.Size()) < startPos {
				r.Close()
				return base.Errorf(base.ClassCorrupt,
					"binlog: storage has applied %s up to offset %d but the file ends at %d: the binary log lost committed transactions; refusing to start",
					name, startPos, st.Size())
			}
			if err := r.Seek(startPos); err != nil {
				r.Close()
				return err
			}
		}
		tr := &txnReader{r: r, file: name}
		for {
			txn, err := tr.next()
			if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			if err != nil {
				r.Close()
				return err
			}
			if txn.DDL {
				r.Close()
				l.opts.Logger.Warn("binlog: dropping unapplied DDL transaction and what follows it", "file", name, "offset", txn.Start, "gtid", txn.GTID.GTID.String())
				return l.truncateAt(i, txn.Start)
			}
			if l.opts.TruncateUnapplied {
				r.Close()
				kept, err := l.saveTail(i, txn.Start)
				if err != nil {
					return err
				}
				l.opts.Logger.Warn("binlog: semi-sync source restarted: cutting transactions that were never acknowledged",
					"file", name, "offset", txn.Start, "first_gtid", txn.GTID.GTID.String(), "kept_in", kept)
				return l.truncateAt(i, txn.Start)
			}
			if g := txn.GTID.GTID; g.SID == l.opts.ServerUUID {
				ownMax = max(ownMax, g.GNO)
			}
			if err := replay(e, txn, ownMax); err != nil {
				r.Close()
				return fmt.Errorf("binlog: replay %s at %s:%d: %w", txn.GTID.GTID, name, txn.Start, err)
			}
			replayed++
		}
		r.Close()
	}
	if replayed > 0 {
		l.opts.Logger.Info("binlog: replayed transactions into storage", "count", replayed)
	}
	return nil
}

// saveTail copies the log from file i offset pos to its end (later files
// included) into a side file, before truncateAt removes it.
func (l *Log) saveTail(i int, pos uint64) (string, error) {
	name := fmt.Sprintf("%s.unapplied-%d", l.files[i], l.opts.Clock.Now().Unix())
	out, err := os.OpenFile(l.path(name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	if err != nil {
		return "", err
	}
	defer out.Close()
	for j := i; j < len(l.files); j++ {
		f, err := os.Open(l.path(l.files[j]))
		if err != nil {
			return "", err
		}
		if j == i {
			_, err = f.Seek(int64(pos), io.SeekStart)
		} else {
			_, err = f.Seek(4, io.SeekStart)
		}
		if err == nil {
			_, err = io.Copy(out, f)
		}
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return name, out.Sync()
}

// truncateAt cuts the log at file i offset pos, removing later files, and
// recomputes gtid_executed.
func (l *Log) truncateAt(i int, pos uint64) error {
	if err := os.Truncate(l.path(l.files[i]), int64(pos)); err != nil {
		return err
	}
	for _, f := range l.files[i+1:] {
		if err := os.Remove(l.path(f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	l.files = l.files[:i+1]
	if err := l.writeIndex(); err != nil {
		return err
	}
	res, err := ScanFile(l.path(l.files[i]), false)
	if err != nil {
		return err
	}
	l.executed = res.PreviousGTIDs.Clone()
	l.executed.AddSet(res.GTIDs)
	l.resetVisible()
	return nil
}

// replay applies one logged transaction's row events to storage; ownMax
// is this server's highest GNO up to it (for storage's record).
func replay(e *storage.Engine, t *Txn, ownMax int64) error {
	ctx := context.Background()
	txn := e.Begin()
	if err := ApplyRowEvents(ctx, e, txn, t.Events[1:]); err != nil {
		txn.Rollback()
		return err
	}
	return txn.CommitReplayed(ctx, encodeSinkRecord(t.File, t.End, t.GTID.GTID, ownMax))
}

// ApplyRowEvents applies a transaction's TABLE_MAP and rows events to txn
// (other events are ignored). On error the caller rolls txn back.
func ApplyRowEvents(ctx context.Context, e *storage.Engine, txn *storage.Txn, events [][]byte) error {
	maps := map[uint64]*TableMap{}
	for _, ev := range events {
		typ := ev[4]
		switch {
		case typ == TableMapEvent:
			tm, err := ParseTableMap(Body(ev))
			if err != nil {
				return err
			}
			maps[tm.TableID] = tm
		case IsRowsEvent(typ):
			body := Body(ev)
			if len(body) < 6 {
				return corrupt("rows event of %d bytes", len(body))
			}
			tm := maps[readTableID(body)]
			if tm == nil {
				return corrupt("rows event for unmapped table id %d", readTableID(body))
			}
			tb := e.Catalog().Table(tm.Database, tm.Table)
			if tb == nil {
				return base.Errorf(base.ClassNotFound, "Table '%s.%s' doesn't exist", tm.Database, tm.Table)
			}
			types := make([]sql.Type, len(tb.Schema))
			for i, c := range tb.Schema {
				types[i] = c.Type
			}
			re, err := ParseRows(typ, body, tm, types)
			if err != nil {
				return err
			}
			if err := ApplyRows(ctx, txn, tb, re); err != nil {
				return err
			}
		}
	}
	return nil
}

// ApplyRows applies a decoded rows event to a storage transaction:
// idempotently, so replaying a row storage already has converges.
func ApplyRows(ctx context.Context, txn *storage.Txn, tb *storage.Table, re *RowsEvent) error {
	switch {
	case re.Before == nil:
		for _, r := range re.After {
			if err := txn.Upsert(ctx, tb, r); err != nil {
				return err
			}
		}
	case re.After == nil:
		for _, r := range re.Before {
			if err := txn.Delete(ctx, tb, r); err != nil {
				return err
			}
		}
	default:
		for i := range re.Before {
			if err := txn.Update(ctx, tb, re.Before[i], re.After[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// syncPath fsyncs the file at path.
func syncPath(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}
