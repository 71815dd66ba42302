package replsql

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/internal/mysqlerr"
	"petrel/repl/replica"
	"petrel/sqlengine"
)

// The source-list functions of MySQL 8.0.22's asynchronous connection
// failover, asynchronous_connection_failover_add_source(channel, host,
// port[, network_namespace[, weight]]) and _delete_source(channel, host,
// port[, network_namespace]), as SQL functions: they work in any
// expression (SELECT ... AS, DO, arguments from user variables or a
// prepared statement's parameters). Checks in MySQL's order: the argument
// count and each argument's result type (strings for channel, host and
// namespace, integers for port and weight, the weight 1..100, a non-empty
// host: 1123, as MySQL's UDF init), then the caller's privilege (SUPER or
// REPLICATION_SLAVE_ADMIN: 1227), then the list's own refusals (3200). On
// success they return MySQL's sentence.

// sourceListArgs are a call's checked arguments.
type sourceListArgs struct {
	channel, host, netns string
	port, weight         int
}

// sourceListFunc is one call of a source-list function.
type sourceListFunc struct {
	name    string // as MySQL spells it
	maxArgs int    // 5 for add (weight), 4 for delete
	args    []sql.Expression
	e       *sqlengine.Engine
	edit    func(sourceListArgs) error
}

var (
	_ sql.FunctionExpression         = (*sourceListFunc)(nil)
	_ sql.NonDeterministicExpression = (*sourceListFunc)(nil)
)

// registerFailoverFunctions registers both functions with e.
func registerFailoverFunctions(e *sqlengine.Engine, r *replica.Replica) {
	reg := func(name string, maxArgs int, edit func(sourceListArgs) error) {
		e.RegisterFunction(sql.FunctionN{Name: name, Fn: func(args ...sql.Expression) (sql.Expression, error) {
			switch {
			case len(args) < 3:
				return nil, udfInitError(name, "You need to specify all mandatory arguments.")
			case len(args) > maxArgs:
				return nil, udfInitError(name, fmt.Sprintf("You must specify max %d arguments.", maxArgs))
			}
			return &sourceListFunc{name: name, maxArgs: maxArgs, args: args, e: e, edit: edit}, nil
		}})
	}
	reg("asynchronous_connection_failover_add_source", 5, func(a sourceListArgs) error {
		return r.AddSource(a.channel, a.host, a.port, a.netns, a.weight)
	})
	reg("asynchronous_connection_failover_delete_source", 4, func(a sourceListArgs) error {
		return r.DeleteSource(a.channel, a.host, a.port, a.netns)
	})
}

// udfInitError is MySQL's refusal of a call's arguments (1123).
func udfInitError(fn, why string) error {
	return mysqlerr.New(mysqlerr.ErCantInitializeUDF, "Can't initialize function '%s'; Wrong arguments: %s", fn, why)
}

func (f *sourceListFunc) FunctionName() string { return f.name }
func (f *sourceListFunc) Description() string {
	return "edits the replication channel's asynchronous connection failover source list"
}
func (f *sourceListFunc) IsNonDeterministic() bool   { return true }
func (f *sourceListFunc) IsNullable() bool           { return false }
func (f *sourceListFunc) Children() []sql.Expression { return f.args }
func (f *sourceListFunc) Type() sql.Type             { return udfResultType }
func (f *sourceListFunc) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_Default, 4
}

// udfResultType is a string UDF's column: VARCHAR(255).
var udfResultType = types.MustCreateStringWithDefaults(sqltypes.VarChar, 255)

func (f *sourceListFunc) Resolved() bool {
	for _, a := range f.args {
		if !a.Resolved() {
			return false
		}
	}
	return true
}

func (f *sourceListFunc) String() string {
	parts := make([]string, len(f.args))
	for i, a := range f.args {
		parts[i] = a.String()
	}
	return f.name + "(" + strings.Join(parts, ", ") + ")"
}

func (f *sourceListFunc) WithChildren(c ...sql.Expression) (sql.Expression, error) {
	if len(c) != len(f.args) {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(c), len(f.args))
	}
	g := *f
	g.args = c
	return &g, nil
}

// Eval checks the arguments and the caller, then edits the list.
func (f *sourceListFunc) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	vals := make([]any, len(f.args))
	for i, a := range f.args {
		v, err := a.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	a, err := f.check(vals)
	if err != nil {
		return nil, err
	}
	if !f.e.HasGlobalPrivilege(ctx, sql.PrivilegeType_Super, "replication_slave_admin") {
		return nil, mysqlerr.New(mysqlerr.ErSpecificAccessDenied, "Access denied; you need (at least one of) the SUPER or REPLICATION_SLAVE_ADMIN privilege(s) for this operation")
	}
	if err := f.edit(a); err != nil {
		if errors.Is(err, replica.ErrFailoverSource) {
			return nil, mysqlerr.New(mysqlerr.ErUDFError, "%s UDF failed; %s",
				f.name, strings.TrimPrefix(err.Error(), replica.ErrFailoverSource.Error()+": "))
		}
		return nil, err
	}
	return "The UDF " + f.name + "() executed successfully.", nil
}

// check applies MySQL's argument rules to the evaluated arguments.
func (f *sourceListFunc) check(vals []any) (sourceListArgs, error) {
	a := sourceListArgs{weight: 50}
	var ok bool
	if a.channel, ok = stringArg(vals[0]); !ok {
		return a, udfInitError(f.name, "You need to specify channel name.")
	}
	if a.host, ok = stringArg(vals[1]); !ok || a.host == "" {
		return a, udfInitError(f.name, "You need to specify hostname.")
	}
	port, ok := intArg(vals[2])
	if !ok {
		return a, udfInitError(f.name, "You need to specify value for port.")
	}
	// Out of range ports reach the list's own check (3200).
	a.port = int(max(min(port, math.MaxInt32), math.MinInt32))
	if len(vals) > 3 {
		if a.netns, ok = stringArg(vals[3]); !ok {
			return a, udfInitError(f.name, "You need to specify a string value for network_namespace.")
		}
	}
	if len(vals) > 4 {
		w, ok := intArg(vals[4])
		if !ok || w < 1 || w > 100 {
			return a, udfInitError(f.name, "The weight argument value should be integer value between 1-100.")
		}
		a.weight = int(w)
	}
	return a, nil
}

// stringArg is v when its result type is a string (MySQL's STRING_RESULT).
func stringArg(v any) (string, bool) {
	switch s := v.(type) {
	case string:
		return s, true
	case []byte:
		return string(s), true
	}
	return "", false
}

// intArg is v when its result type is an integer (MySQL's INT_RESULT):
// not a decimal, a float or a string holding digits.
func intArg(v any) (int64, bool) {
	switch n := v.(type) {
	case int8:
		return int64(n), true
	case int16:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case int:
		return int64(n), true
	case uint8:
		return int64(n), true
	case uint16:
		return int64(n), true
	case uint32:
		return int64(n), true
	case uint64:
		return int64(min(n, math.MaxInt64)), true
	case uint:
		return int64(min(uint64(n), math.MaxInt64)), true
	}
	return 0, false
}
