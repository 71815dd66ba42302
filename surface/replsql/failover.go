package replsql

import (
	"errors"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/internal/mysqlerr"
	"petrel/repl/replica"
	"petrel/sqlengine"
)

// Asynchronous connection failover's SQL surface (MySQL 8.0.22): the
// source-list functions, the performance_schema table showing the list,
// Petrel's lag thresholds and the switch counters.

// failoverError maps the failover refusals to MySQL's numbers (nil: not
// one of them).
func failoverError(err error) error {
	switch {
	case errors.Is(err, replica.ErrFailoverNeedsAutoPosition):
		return mysqlerr.New(mysqlerr.ErAsyncReconnectAutoPositionOff, "%s", replica.ErrFailoverNeedsAutoPosition.Error())
	case errors.Is(err, replica.ErrAutoPositionNeededByFailover):
		return mysqlerr.New(mysqlerr.ErDisableAutoPositionRequiresAsyncOff, "%s", replica.ErrAutoPositionNeededByFailover.Error())
	}
	return nil
}

// registerFailover registers the functions, the table and the counters.
func registerFailover(e *sqlengine.Engine, r *replica.Replica) {
	registerFailoverFunctions(e, r)
	str := func(n int) sql.Type { return types.MustCreateStringWithDefaults(sqltypes.VarChar, int64(n)) }
	e.RegisterSystemTable(sqlengine.SystemTable{
		Name: "replication_asynchronous_connection_failover",
		Schema: sql.Schema{
			{Name: "CHANNEL_NAME", Type: str(64)},
			{Name: "HOST", Type: str(255)},
			{Name: "PORT", Type: types.Uint32},
			{Name: "NETWORK_NAMESPACE", Type: str(64)},
			{Name: "WEIGHT", Type: types.Uint8},
			{Name: "MANAGED_NAME", Type: str(64)},
		},
		Rows: func(*sql.Context) ([]sql.Row, error) {
			list, err := r.FailoverSources()
			if err != nil {
				return nil, err
			}
			var rows []sql.Row
			for _, s := range list {
				rows = append(rows, sql.Row{"", s.Host, uint32(s.Port), s.NetworkNamespace, uint8(s.Weight), ""})
			}
			return rows, nil
		},
	})
	e.RegisterStatus("Petrel_replica_source_switches", func() any { return r.FailoverCounters().Switches })
	e.RegisterStatus("Petrel_replica_source_lag_switches", func() any { return r.FailoverCounters().LagSwitches })
}
