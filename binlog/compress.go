package binlog

import (
	"sync/atomic"
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
}

// note counts a written compressed transaction.
func (c *compression) note(x *encodedTxn) {
	c.txns.Add(1)
	c.uncompressed.Add(uint64(x.rawSize))
	prev := 0
	if len(x.ends) > 1 {
		prev = x.ends[len(x.ends)-2]
	}
	c.compressed.Add(uint64(x.ends[len(x.ends)-1] - prev))
}

// CompressionStats are the counters of MySQL's
// performance_schema.binary_log_transaction_compression_stats row for the
// binary log and ZSTD: transactions written compressed, the bytes of their
// TRANSACTION_PAYLOAD events, the bytes of the events they hold.
type CompressionStats struct {
	Transactions      uint64
	CompressedBytes   uint64
	UncompressedBytes uint64
}

// CompressionStats returns the compression counters.
func (l *Log) CompressionStats() CompressionStats {
	return CompressionStats{
		Transactions:      l.comp.txns.Load(),
		CompressedBytes:   l.comp.compressed.Load(),
		UncompressedBytes: l.comp.uncompressed.Load(),
	}
}

// SetReplicaCompression sets the zstd level (0: none) the log compresses
// transactions without a client session at (the replica's applier):
// binlog_transaction_compression's and _level_zstd's global values.
func (l *Log) SetReplicaCompression(level int) { l.comp.replLevel.Store(int32(level)) }
