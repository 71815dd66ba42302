package replsql

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/internal/mysqlerr"
	"petrel/repl/replica"
	"petrel/sqlengine"
)

// Asynchronous connection failover's SQL surface (MySQL 8.0.22): the
// source-list functions, the performance_schema table showing the list,
// Petrel's lag thresholds and the switch counters.

// failoverVars are Petrel's lag-switch thresholds (see replica.Failover).
type failoverVars struct{ lagTxns, lagSecs func() any }

// Defaults: a source more than 1000 transactions behind another for 10 s
// is left. A probe and the stream are read a moment apart, so the
// threshold stays well above what one second of a busy primary commits.
func failoverVariables() failoverVars {
	return failoverVars{
		lagTxns: sqlengine.AliasVariables([]string{"replica_failover_lag_transactions"},
			types.NewSystemIntType("replica_failover_lag_transactions", 0, 1<<40, false), int64(1000)),
		lagSecs: sqlengine.AliasVariables([]string{"replica_failover_lag_seconds"},
			types.NewSystemIntType("replica_failover_lag_seconds", 0, 31536000, false), int64(10)),
	}
}

// lag reads the thresholds.
func (f failoverVars) lag() (int64, time.Duration) {
	n, _ := sqlengine.VarInt(f.lagTxns())
	s, _ := sqlengine.VarInt(f.lagSecs())
	return n, time.Duration(s) * time.Second
}

// failoverError maps the failover refusals to MySQL's numbers (nil: not
// one of them).
func failoverError(err error) error {
	switch {
	case errors.Is(err, replica.ErrFailoverNeedsAutoPosition):
		return mysql.NewSQLError(mysqlerr.ErAsyncReconnectAutoPositionOff, mysqlerr.State(mysqlerr.ErAsyncReconnectAutoPositionOff), "%s", replica.ErrFailoverNeedsAutoPosition.Error())
	case errors.Is(err, replica.ErrAutoPositionNeededByFailover):
		return mysql.NewSQLError(mysqlerr.ErDisableAutoPositionRequiresAsyncOff, mysqlerr.State(mysqlerr.ErDisableAutoPositionRequiresAsyncOff), "%s", replica.ErrAutoPositionNeededByFailover.Error())
	}
	return nil
}

// udfArg is one function argument: a string, a number, or NULL.
type udfArg struct {
	s      string
	quoted bool
	null   bool
}

// parseUDFArgs splits a function's argument list (strings, numbers, NULL).
func parseUDFArgs(s string) ([]udfArg, bool) {
	var out []udfArg
	i := 0
	for {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) {
			return out, len(out) == 0
		}
		var a udfArg
		if q := s[i]; q == '\'' || q == '"' {
			v, next, closed := replica.ScanQuoted(s, i)
			if !closed {
				return nil, false
			}
			i = next
			a = udfArg{s: v, quoted: true}
		} else {
			j := i
			for j < len(s) && s[j] != ',' && s[j] != ' ' {
				j++
			}
			a = udfArg{s: s[i:j], null: strings.EqualFold(s[i:j], "NULL")}
			i = j
		}
		out = append(out, a)
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) {
			return out, true
		}
		if s[i] != ',' {
			return nil, false
		}
		i++
	}
}

// registerFailover registers the functions, the table and the counters.
func registerFailover(e *sqlengine.Engine, r *replica.Replica) {
	initErr := func(fn, why string) error {
		return mysql.NewSQLError(mysqlerr.ErCantInitializeUDF, mysqlerr.State(mysqlerr.ErCantInitializeUDF), "Can't initialize function '%s'; Wrong arguments: %s", fn, why)
	}
	// The functions answer as MySQL's do: one row whose column is the
	// call as written (or its alias) and whose value says it succeeded.
	udf := func(fn string, maxArgs int, call func(args []udfArg, port int, weight int) error) sqlengine.AdminFunc {
		return func(_ context.Context, _ *sqlengine.Session, m []string) (*sqlengine.AdminResult, error) {
			args, ok := parseUDFArgs(m[2])
			if !ok {
				return nil, mysql.NewSQLError(mysqlerr.ErParse, mysqlerr.State(mysqlerr.ErParse), "You have an error in your SQL syntax near '%s'", m[2])
			}
			if len(args) < 3 || len(args) > maxArgs {
				return nil, initErr(fn, "You need to specify all mandatory arguments.")
			}
			for i, a := range args {
				if a.null {
					return nil, initErr(fn, "argument "+strconv.Itoa(i+1)+" must not be NULL.")
				}
				if (i == 2 || i == 4) == a.quoted {
					return nil, initErr(fn, "the port and the weight are integers; the channel, host and network namespace are strings.")
				}
			}
			port, err := strconv.Atoi(args[2].s)
			if err != nil {
				return nil, initErr(fn, "the port must be an integer.")
			}
			weight := 50
			if len(args) == 5 {
				if weight, err = strconv.Atoi(args[4].s); err != nil {
					return nil, initErr(fn, "the weight must be an integer.")
				}
			}
			if err := call(args, port, weight); err != nil {
				if errors.Is(err, replica.ErrFailoverSource) {
					return nil, mysql.NewSQLError(mysqlerr.ErUDFError, mysqlerr.State(mysqlerr.ErUDFError), "%s UDF failed; %s", fn, strings.TrimPrefix(err.Error(), replica.ErrFailoverSource.Error()+": "))
				}
				return nil, err
			}
			col := m[3]
			if col == "" {
				col = m[1]
			}
			return &sqlengine.AdminResult{Columns: []string{col}, Rows: [][]*string{{sqlengine.Str("The UDF " + fn + "() executed successfully.")}}}, nil
		}
	}
	ns := func(args []udfArg) string {
		if len(args) > 3 {
			return args[3].s
		}
		return ""
	}
	e.RegisterAdmin(`SELECT (asynchronous_connection_failover_add_source ?\((.*)\))(?: AS `+"`?"+`([A-Za-z0-9_]+)`+"`?"+`)?`, sql.PrivilegeType_Super,
		udf("asynchronous_connection_failover_add_source", 5, func(a []udfArg, port, weight int) error {
			return r.AddSource(a[0].s, a[1].s, port, ns(a), weight)
		}))
	e.RegisterAdmin(`SELECT (asynchronous_connection_failover_delete_source ?\((.*)\))(?: AS `+"`?"+`([A-Za-z0-9_]+)`+"`?"+`)?`, sql.PrivilegeType_Super,
		udf("asynchronous_connection_failover_delete_source", 4, func(a []udfArg, port, _ int) error {
			return r.DeleteSource(a[0].s, a[1].s, port, ns(a))
		}))
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
	sqlengine.RegisterStatus("Petrel_replica_source_switches", func() any { return r.FailoverCounters().Switches })
	sqlengine.RegisterStatus("Petrel_replica_source_lag_switches", func() any { return r.FailoverCounters().LagSwitches })
}
