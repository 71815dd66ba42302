package binlogsql

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/binlog"
	"petrel/sqlengine"
	"petrel/storage"
	"petrel/surface/sysvar"
)

// Binary log transaction compression's SQL surface (MySQL 8.0.20):
// binlog_transaction_compression (OFF) and
// binlog_transaction_compression_level_zstd (3, 1-22), both GLOBAL and
// SESSION. A client transaction takes its session's values when it
// begins (Engine.SetTxnHook); the applier's transactions the global
// ones. MySQL counts in performance_schema.binary_log_transaction_compression_stats,
// which Petrel does not have: the same counters are status variables.

// txnCompression gives a client transaction its session's compression.
func (v *Vars) txnCompression(ctx *sql.Context, s *sqlengine.Session, txn *storage.Txn) {
	if !v.compressionSet.Load() {
		return
	}
	on, err := s.GetSessionVariable(ctx, "binlog_transaction_compression")
	if err != nil || !sysvar.Bool(on) {
		return
	}
	lv, err := s.GetSessionVariable(ctx, "binlog_transaction_compression_level_zstd")
	n := sysvar.Int(lv)
	if err != nil || n < 1 || n > 22 {
		n = binlog.DefaultCompressionLevel
	}
	txn.SetCompression(int(n))
}

// registerCompression wires the open log (its replicated transactions
// take the global settings: configure): the transaction hook, the
// counters.
func (v *Vars) registerCompression(e *sqlengine.Engine, l *binlog.Log) {
	e.SetTxnHook(v.txnCompression)
	e.RegisterStatus("Petrel_binlog_compressed_transactions", func() any { return l.CompressionStats().Transactions })
	e.RegisterStatus("Petrel_binlog_compressed_bytes", func() any { return l.CompressionStats().CompressedBytes })
	e.RegisterStatus("Petrel_binlog_uncompressed_bytes", func() any { return l.CompressionStats().UncompressedBytes })
	str := func(n int64) sql.Type { return types.MustCreateStringWithDefaults(sqltypes.VarChar, n) }
	col := func(name string, t sql.Type) *sql.Column { return &sql.Column{Name: name, Type: t, Nullable: true} }
	stamp := types.DatetimeMaxPrecision
	e.RegisterSystemTable(sqlengine.SystemTable{
		Name: "binary_log_transaction_compression_stats",
		Schema: sql.Schema{
			col("LOG_TYPE", str(6)), col("COMPRESSION_TYPE", str(64)),
			col("TRANSACTION_COUNTER", types.Uint64), col("COMPRESSED_BYTES_COUNTER", types.Uint64),
			col("UNCOMPRESSED_BYTES_COUNTER", types.Uint64), col("COMPRESSION_PERCENTAGE", types.Int16),
			col("FIRST_TRANSACTION_ID", str(57)), col("FIRST_TRANSACTION_COMPRESSED_BYTES", types.Uint64),
			col("FIRST_TRANSACTION_UNCOMPRESSED_BYTES", types.Uint64), col("FIRST_TRANSACTION_TIMESTAMP", stamp),
			col("LAST_TRANSACTION_ID", str(57)), col("LAST_TRANSACTION_COMPRESSED_BYTES", types.Uint64),
			col("LAST_TRANSACTION_UNCOMPRESSED_BYTES", types.Uint64), col("LAST_TRANSACTION_TIMESTAMP", stamp),
		},
		Rows: func(*sql.Context) ([]sql.Row, error) {
			st := l.CompressionStats()
			if st.Transactions == 0 {
				return nil, nil
			}
			pct := int16(0)
			if st.UncompressedBytes > 0 {
				pct = int16(100 - st.CompressedBytes*100/st.UncompressedBytes)
			}
			return []sql.Row{{"BINARY", "ZSTD", st.Transactions, st.CompressedBytes, st.UncompressedBytes, pct,
				st.First.GTID.String(), st.First.CompressedBytes, st.First.Uncompressed, st.First.Time.UTC(),
				st.Last.GTID.String(), st.Last.CompressedBytes, st.Last.Uncompressed, st.Last.Time.UTC()}}, nil
		},
	})
}
