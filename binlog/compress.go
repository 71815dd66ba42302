package binlog

import (
	"sync"
	"sync/atomic"
	"time"

	"petrel/internal/base"
)

// compression is the log's transaction compression state: the level the
// applier's (replicated) transactions are compressed at, the XIDs given
// to compressed transactions, and MySQL's
// binary_log_transaction_compression_stats counters. Safe for concurrent
// use.
type compression struct {
	// replLevel: binlog_transaction_compression's global value as a zstd
	// level (0: OFF), for transactions without a client session.
	replLevel atomic.Int32
	// xid numbers the XIDs sealed inside payloads (the commit turn, which
	// numbers the others by their GNO, cannot reach into them).
	xid atomic.Uint64

	txns, compressed, uncompressed atomic.Uint64
	mu                             sync.Mutex
	first, last                    CompressedTxn
}

// CompressedTxn is one compressed transaction as the statistics table
// describes it: its GTID, its payload event's size and the size of the
// events it holds, when it was written.
type CompressedTxn struct {
	GTID                          base.GTID
	CompressedBytes, Uncompressed uint64
	Time                          time.Time
}

// note counts a written compressed transaction.
func (c *compression) note(x *encodedTxn, gtid base.GTID, at time.Time) {
	prev := 0
	if len(x.ends) > 1 {
		prev = x.ends[len(x.ends)-2]
	}
	t := CompressedTxn{GTID: gtid, CompressedBytes: uint64(x.ends[len(x.ends)-1] - prev), Uncompressed: uint64(x.rawSize), Time: at}
	c.mu.Lock()
	if c.txns.Load() == 0 {
		c.first = t
	}
	c.last = t
	c.txns.Add(1)
	c.uncompressed.Add(t.Uncompressed)
	c.compressed.Add(t.CompressedBytes)
	c.mu.Unlock()
}

// CompressionStats are the counters of MySQL's
// performance_schema.binary_log_transaction_compression_stats row for the
// binary log and ZSTD: transactions written compressed, the bytes of their
// TRANSACTION_PAYLOAD events, the bytes of the events they hold.
type CompressionStats struct {
	Transactions      uint64
	CompressedBytes   uint64
	UncompressedBytes uint64
	First, Last       CompressedTxn
}

// CompressionStats returns the compression counters.
func (l *Log) CompressionStats() CompressionStats {
	l.comp.mu.Lock()
	defer l.comp.mu.Unlock()
	return CompressionStats{
		Transactions:      l.comp.txns.Load(),
		CompressedBytes:   l.comp.compressed.Load(),
		UncompressedBytes: l.comp.uncompressed.Load(),
		First:             l.comp.first,
		Last:              l.comp.last,
	}
}

// SetReplicaCompression sets the zstd level (0: none) the log compresses
// transactions without a client session at (the replica's applier):
// binlog_transaction_compression's and _level_zstd's global values.
func (l *Log) SetReplicaCompression(level int) { l.comp.replLevel.Store(int32(level)) }
