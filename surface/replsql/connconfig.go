package replsql

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/repl/replica"
	"petrel/sqlengine"
)

// registerConnectionConfig registers
// performance_schema.replication_connection_configuration: the channel's
// CHANGE REPLICATION SOURCE settings, MySQL 8.0's columns for what Petrel
// keeps (compression included).
func registerConnectionConfig(e *sqlengine.Engine, r *replica.Replica) {
	str := func(n int64) sql.Type { return types.MustCreateStringWithDefaults(sqltypes.VarChar, n) }
	yesNo := func(b bool) string {
		if b {
			return "YES"
		}
		return "NO"
	}
	e.RegisterSystemTable(sqlengine.SystemTable{
		Name: "replication_connection_configuration",
		Schema: sql.Schema{
			col("CHANNEL_NAME", str(64), false),
			col("HOST", str(255), false),
			col("PORT", types.Int32, false),
			col("USER", str(32), false),
			col("AUTO_POSITION", str(1), false),
			col("SSL_ALLOWED", str(3), false),
			col("SSL_CA_FILE", str(512), false),
			col("SSL_CERTIFICATE", str(512), false),
			col("SSL_KEY", str(512), false),
			col("SSL_VERIFY_SERVER_CERTIFICATE", str(3), false),
			col("CONNECTION_RETRY_INTERVAL", types.Int32, false),
			col("CONNECTION_RETRY_COUNT", types.Uint64, false),
			col("HEARTBEAT_INTERVAL", types.Float64, false),
			col("COMPRESSION_ALGORITHM", str(64), false),
			col("ZSTD_COMPRESSION_LEVEL", types.Uint32, false),
			col("SOURCE_CONNECTION_AUTO_FAILOVER", str(1), false),
		},
		Rows: func(*sql.Context) ([]sql.Row, error) {
			c, hb, ok := r.ConnectionConfig()
			if !ok {
				return nil, nil
			}
			auto, failover := "0", "0"
			if c.AutoPosition {
				auto = "1"
			}
			if c.AutoFailover {
				failover = "1"
			}
			algos := c.CompressionAlgorithms
			if algos == "" {
				algos = "uncompressed"
			}
			level := c.ZstdLevel
			if level == 0 {
				level = 3
			}
			return []sql.Row{{"", c.Host, int32(c.Port), c.User, auto, yesNo(c.SSL), c.SSLCA, c.SSLCert, c.SSLKey, yesNo(c.SSLVerifyServerCert),
				int32(c.ConnectRetry.Seconds()), uint64(c.RetryCount), hb.Seconds(), strings.ToLower(algos), uint32(level), failover}}, nil
		},
	})
}
