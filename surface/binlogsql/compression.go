package binlogsql

import (
	"strings"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/binlog"
	"petrel/sqlengine"
	"petrel/storage"
)

// Binary log transaction compression's SQL surface (MySQL 8.0.20):
// binlog_transaction_compression (OFF) and
// binlog_transaction_compression_level_zstd (3, 1-22), both GLOBAL and
// SESSION. A client transaction takes its session's values when it
// begins (Engine.SetTxnHook); the applier's transactions the global
// ones. MySQL counts in performance_schema.binary_log_transaction_compression_stats,
// which Petrel does not have: the same counters are status variables.

// compressionSet: some scope set compression ON since the start (or the
// option file did); until then no transaction reads the session
// variables.
var compressionSet atomic.Bool

// globalCompression mirrors the global values (NotifyChanged cannot read
// the registry), for the log's replicated transactions.
var (
	globalCompressionOn    atomic.Bool
	globalCompressionLevel atomic.Int32
	compressionLog         atomic.Pointer[binlog.Log]
)

func compressionVariables() []sql.SystemVariable {
	both := sql.GetMysqlScope(sql.SystemVariableScope_Both)
	return []sql.SystemVariable{
		&sql.MysqlSystemVariable{Name: "binlog_transaction_compression", Scope: both, Dynamic: true,
			Type: types.NewSystemBoolType("binlog_transaction_compression"), Default: int8(0), NotifyChanged: notifyCompression},
		&sql.MysqlSystemVariable{Name: "binlog_transaction_compression_level_zstd", Scope: both, Dynamic: true,
			Type:    types.NewSystemIntType("binlog_transaction_compression_level_zstd", 1, 22, false),
			Default: int64(binlog.DefaultCompressionLevel), NotifyChanged: notifyCompression},
	}
}

// notifyCompression runs under the registry's lock, before it stores
// the value: it must not read the registry.
func notifyCompression(_ *sql.Context, scope sql.SystemVariableScope, v sql.SystemVarValue) error {
	level := strings.HasSuffix(v.Var.GetName(), "_zstd")
	if !level && sqlengine.Truthy(v.Val) {
		compressionSet.Store(true)
	}
	if !scope.IsGlobalOnly() {
		return nil
	}
	if level {
		n, _ := sqlengine.VarInt(v.Val)
		globalCompressionLevel.Store(int32(n))
	} else {
		globalCompressionOn.Store(sqlengine.Truthy(v.Val))
	}
	applyGlobalCompression()
	return nil
}

func applyGlobalCompression() {
	l := compressionLog.Load()
	if l == nil {
		return
	}
	level := 0
	if globalCompressionOn.Load() {
		level = int(globalCompressionLevel.Load())
	}
	l.SetReplicaCompression(level)
}

// txnCompression gives a client transaction its session's compression.
func txnCompression(ctx *sql.Context, s *sqlengine.Session, txn *storage.Txn) {
	if !compressionSet.Load() {
		return
	}
	on, err := s.GetSessionVariable(ctx, "binlog_transaction_compression")
	if err != nil || !sqlengine.Truthy(on) {
		return
	}
	lv, err := s.GetSessionVariable(ctx, "binlog_transaction_compression_level_zstd")
	n, ok := sqlengine.VarInt(lv)
	if err != nil || !ok || n < 1 || n > 22 {
		n = binlog.DefaultCompressionLevel
	}
	txn.SetCompression(int(n))
}

// registerCompression wires the open log: the globals as the option file
// left them, the transaction hook, the counters.
func registerCompression(e *sqlengine.Engine, l *binlog.Log) {
	globalCompressionOn.Store(sqlengine.Truthy(sqlengine.GlobalString("binlog_transaction_compression")))
	globalCompressionLevel.Store(int32(sqlengine.GlobalUint("binlog_transaction_compression_level_zstd", binlog.DefaultCompressionLevel)))
	if globalCompressionOn.Load() {
		compressionSet.Store(true)
	}
	compressionLog.Store(l)
	applyGlobalCompression()
	e.SetTxnHook(txnCompression)
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
