package binlog

// Committing a cached transaction (txncache.go): encoding it for the
// commit turn, and writing a spilled one to the log by streaming its
// cache file.

import (
	"encoding/binary"
	"fmt"

	"petrel/internal/base"
	"petrel/internal/failpoint"
	"petrel/internal/fsutil"
	"petrel/storage"
)

// encodeCached is encodeCompressed for a row transaction whose changes
// are in c. A cache that never spilled is logged as encodeCompressed logs
// it (in memory, compressed at level > 0); a spilled one is left in its
// file for Append to stream (and never compressed: that would need the
// whole transaction in memory).
func encodeCached(o Options, cols *colCache, rec *storage.CommitRecord, c *txnCache, sid base.SID, level int, xid uint64) (*encodedTxn, error) {
	if err := c.seal(); err != nil {
		return nil, err
	}
	serverID, ts, orig := eventStamp(o, rec)
	x := &encodedTxn{sid: sid, buf: make([]byte, gtidEventMax, gtidEventMax+512+len(c.buf)), ends: make([]int, 0, 8)}
	x.event(QueryEvent, serverID, ts, beginBody)
	for _, tb := range c.tables {
		tc, err := cols.get(tb)
		if err != nil {
			return nil, err
		}
		x.event(TableMapEvent, serverID, ts, tc.mapBody)
	}
	if c.f == nil {
		err := c.events(func(ev []byte, at int64) error {
			c.patchEvent(ev, at, serverID, ts, 0)
			x.buf = append(x.buf, ev...)
			x.ends = append(x.ends, len(x.buf))
			return nil
		})
		if err != nil {
			return nil, err
		}
		x.event(XIDEvent, serverID, ts, make([]byte, 8)) // the XID (the GNO) is placed later
		x.xid = true
		if level > 0 {
			x.compressTxn(serverID, ts, level, xid)
		}
	} else {
		x.spill, x.spillLen, x.stamp = c, c.size(), [2]uint32{serverID, ts}
		var t encodedTxn
		t.event(XIDEvent, serverID, ts, make([]byte, 8))
		x.trailer = t.buf
	}
	x.prependGTID(serverID, o.versionNumber(), true, rec.Time, orig)
	return x, nil
}

// spillWriteChunk is how much of a spilled transaction Append writes at
// a time.
const spillWriteChunk = 1 << 20

// writeSpilled writes a spilled transaction at the log's end: its head
// (placed), its cache's events, given their stamp, next positions and
// checksums on the way, and its XID event for GNO gno. It returns the
// bytes written and, for a transaction of at most spillWriteChunk bytes
// (written in one piece), those bytes, for the tail log. Caller holds mu.
func (l *Log) writeSpilled(x *encodedTxn, gno int64) (uint64, []byte, error) {
	size := uint64(len(x.buf)) + uint64(x.spillLen) + uint64(len(x.trailer))
	start := l.pos // of out
	var out []byte
	if size <= spillWriteChunk {
		out = append(make([]byte, 0, size), x.buf...)
	} else {
		if err := l.writeAtOff(x.buf, l.pos); err != nil {
			return 0, nil, err
		}
		start += uint64(len(x.buf))
		out = make([]byte, 0, spillWriteChunk)
	}
	c := x.spill
	err := c.events(func(ev []byte, at int64) error {
		if len(out) > 0 && len(out)+len(ev) > spillWriteChunk {
			if err := l.writeAtOff(out, start); err != nil {
				return err
			}
			start += uint64(len(out))
			out = out[:0]
			// A crash here leaves a torn transaction (e2e kill tests).
			if err := failpoint.Inject("binlog.spillChunk"); err != nil {
				return err
			}
		}
		c.patchEvent(ev, at, x.stamp[0], x.stamp[1], start+uint64(len(out)+len(ev)))
		out = append(out, ev...)
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	t := x.trailer
	putXID(t, gno)
	setNextPos(t, uint32(start+uint64(len(out)+len(t))))
	out = append(out, t...)
	if err := l.writeAtOff(out, start); err != nil {
		return 0, nil, err
	}
	if err := failpoint.Inject("binlog.spilledWritten"); err != nil {
		return 0, nil, err
	}
	n := start + uint64(len(out)) - l.pos
	if n != size {
		return 0, nil, fmt.Errorf("binlog: spilled transaction of %d bytes written as %d", size, n)
	}
	if start != l.pos {
		out = nil // written in chunks: out holds the last one
	}
	return n, out, nil
}

// spillTailMax is the largest spilled transaction copied into the tail
// log. A cache spills past binlog_cache_size (32 KiB by default, MySQL's),
// so every multi-row INSERT of a few dozen KB spills: logged like any
// other transaction, its commit shares the group's fsync of the tail log,
// where an fdatasync of the binlog file inside the commit order
// (syncSpilled) made every other commit queue behind it. Past it, the
// copy's memory is not worth the fsync it saves.
const spillTailMax = 4 << 20

// logSpilled makes a spilled transaction of n bytes, just written at
// l.pos, durable as the group commit makes others (logTail): its bytes,
// which writeSpilled kept when it wrote them in one piece, else read back
// from the file, copied into the tail log; a larger one, or one the ring
// cannot hold, by an fdatasync of the file in place. It returns where the
// tail record went (-1: none). Caller holds mu.
func (l *Log) logSpilled(n uint64, whole []byte) (int64, error) {
	if whole != nil {
		return l.logTail(whole)
	}
	if n > spillTailMax || !l.tail.fits(int(n)) {
		return -1, l.syncSpilled(l.pos + n)
	}
	b := make([]byte, n)
	if _, err := l.f.ReadAt(b, int64(l.pos)); err != nil {
		return -1, fmt.Errorf("binlog: read back a spilled transaction from %s: %w", l.files[l.fileIdx], err)
	}
	return l.logTail(b)
}

// syncSpilled makes a spilled transaction, just written up to end,
// durable in place: it is larger than logSpilled copies into the tail
// log, so the file is fdatasync'd, as logTail does for a record past the
// ring. Caller holds mu.
func (l *Log) syncSpilled(end uint64) error {
	if err := fsutil.DataSync(l.f); err != nil {
		return fmt.Errorf("binlog: sync %s after a spilled transaction: %w", l.files[l.fileIdx], err)
	}
	l.fileSynced = end
	return nil
}

// putXID sets the XID of an XID event (the transaction's GNO).
func putXID(ev []byte, gno int64) {
	binary.LittleEndian.PutUint64(ev[len(ev)-ChecksumLen-8:], uint64(gno))
}
