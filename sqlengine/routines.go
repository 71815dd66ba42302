package sqlengine

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/storedfn"
	"petrel/storage"
)

// Stored procedures (issue 31): GMS parses, plans and runs CREATE
// PROCEDURE and CALL; the backend keeps each procedure's CREATE
// statement in the database's catalog record, so it survives a restart
// and, the change being a catalog write committed with the statement's
// text, reaches the binlog as a DDL query event that replicas apply.

// GetStoredProcedure implements sql.StoredProcedureDatabase.
func (d *Database) GetStoredProcedure(_ *sql.Context, name string) (sql.StoredProcedureDetails, bool, error) {
	sd := d.sdb()
	if sd == nil {
		return sql.StoredProcedureDetails{}, false, nil
	}
	for _, p := range sd.Def().Procedures {
		if strings.EqualFold(p.Name, name) {
			return procDetails(p), true, nil
		}
	}
	return sql.StoredProcedureDetails{}, false, nil
}

// storedFunction is the CREATE FUNCTION statement of function name, ""
// if there is none (storedfuncs.go).
func (d *Database) storedFunction(name string) string {
	sd := d.sdb()
	if sd == nil {
		return ""
	}
	hidden := storedfn.HiddenName(name)
	for _, p := range sd.Def().Procedures {
		if strings.EqualFold(p.Name, hidden) {
			return p.CreateStmt
		}
	}
	return ""
}

// GetStoredProcedures implements sql.StoredProcedureDatabase.
func (d *Database) GetStoredProcedures(*sql.Context) ([]sql.StoredProcedureDetails, error) {
	sd := d.sdb()
	if sd == nil {
		return nil, nil
	}
	var out []sql.StoredProcedureDetails
	for _, p := range sd.Def().Procedures {
		if !storedfn.IsHidden(p.Name) { // a function's (storedfuncs.go)
			out = append(out, procDetails(p))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// SaveStoredProcedure implements sql.StoredProcedureDatabase.
func (d *Database) SaveStoredProcedure(ctx *sql.Context, spd sql.StoredProcedureDetails) error {
	txn, err := ddlTxn(ctx)
	if err != nil {
		return err
	}
	return d.p.e.Catalog().UpdateDatabase(txn, d.name, func(dd *storage.DatabaseDef) error {
		for _, p := range dd.Procedures {
			if strings.EqualFold(p.Name, spd.Name) {
				return sql.ErrStoredProcedureAlreadyExists.New(spd.Name)
			}
		}
		create := spd.CreateStatement
		if s, ok := ctx.Session.(*Session); ok && storedfn.IsHidden(spd.Name) && s.routineText != "" {
			// A function's hidden procedure keeps the CREATE FUNCTION.
			create = s.routineText
		} else if !storedfn.IsHidden(spd.Name) {
			create = withDefiner(ctx, create) // showcreateproc.go
		}
		dd.Procedures = append(dd.Procedures, storage.ProcedureDef{
			Name: spd.Name, CreateStmt: create, SqlMode: spd.SqlMode,
			CreatedAt: unixNanos(spd.CreatedAt), ModifiedAt: unixNanos(spd.ModifiedAt),
		})
		return nil
	})
}

// DropStoredProcedure implements sql.StoredProcedureDatabase.
func (d *Database) DropStoredProcedure(ctx *sql.Context, name string) error {
	txn, err := ddlTxn(ctx)
	if err != nil {
		return err
	}
	return d.p.e.Catalog().UpdateDatabase(txn, d.name, func(dd *storage.DatabaseDef) error {
		for i, p := range dd.Procedures {
			if strings.EqualFold(p.Name, name) {
				dd.Procedures = append(dd.Procedures[:i], dd.Procedures[i+1:]...)
				return nil
			}
		}
		return sql.ErrStoredProcedureDoesNotExist.New(name)
	})
}

func procDetails(p storage.ProcedureDef) sql.StoredProcedureDetails {
	create := p.CreateStmt
	if storedfn.IsHidden(p.Name) {
		// A function's hidden procedure, from its CREATE FUNCTION.
		if d, err := storedfn.Parse(create); err == nil {
			create, _ = d.Procedure()
		}
	}
	return sql.StoredProcedureDetails{
		Name: p.Name, CreateStatement: create, SqlMode: p.SqlMode,
		CreatedAt: time.Unix(0, p.CreatedAt).UTC(), ModifiedAt: time.Unix(0, p.ModifiedAt).UTC(),
	}
}

// unixNanos is t in nanoseconds, or now when t is unset.
func unixNanos(t time.Time) int64 {
	if t.IsZero() {
		return time.Now().UnixNano()
	}
	return t.UnixNano()
}

// enterRoutine notes that the procedure of a CALL starts running on the
// session (Petrel's interpreter runs it while the Call node is built);
// done notes its end. A procedure that calls itself, directly or through
// others, more than max_sp_recursion_depth times is refused with MySQL's
// 1456 (the default, 0, refuses any recursion, as MySQL's). Each level
// keeps its own parameters (routinerun.go keepParams).
func enterRoutine(ctx *sql.Context, n *plan.Call) (done func(), err error) {
	s, ok := ctx.Session.(*Session)
	if !ok {
		return func() {}, nil
	}
	name := strings.ToLower(n.Name)
	if db := n.Database(); db != nil {
		name = strings.ToLower(db.Name()) + "." + name
	}
	if depth := s.running[name]; depth > 0 {
		limit := int64(0)
		if v, err := s.GetSessionVariable(ctx, "max_sp_recursion_depth"); err == nil {
			if x, ok := v.(int64); ok {
				limit = x
			}
		}
		if int64(depth) > limit {
			return nil, mysqlerr.New(mysqlerr.ErSPRecursionLimit, "Recursive limit %d (as set by the max_sp_recursion_depth variable) was exceeded for routine %s", limit, n.Name)
		}
	}
	if s.running == nil {
		s.running = map[string]int{}
	}
	s.running[name]++
	return func() {
		if s.running[name]--; s.running[name] <= 0 {
			delete(s.running, name)
		}
	}, nil
}

// maxSPRecursionVariable is max_sp_recursion_depth (0-255, default 0),
// which enterRoutine enforces.
func maxSPRecursionVariable() sql.SystemVariable {
	return &sql.MysqlSystemVariable{
		Name:    "max_sp_recursion_depth",
		Scope:   sql.GetMysqlScope(sql.SystemVariableScope_Both),
		Dynamic: true,
		Type:    types.NewSystemIntType("max_sp_recursion_depth", 0, 255, false),
		Default: int64(0),
	}
}

// shareTransaction makes the procedure a CALL is about to run use the
// caller's transaction, as MySQL's does, where its statements would not
// commit on their own (inside START TRANSACTION or with autocommit=0,
// and always inside a stored function). GMS runs a procedure with no
// transaction set, so its first statement started a new one that
// nothing committed: a CALL inside a transaction lost its writes, and
// a ROLLBACK did not undo them. In autocommit mode each of the
// procedure's statements commits on its own, as in MySQL, and GMS's
// behaviour is kept. The returned func restores the previous sharing.
func shareTransaction(ctx *sql.Context) func() {
	s, ok := ctx.Session.(*Session)
	t, isTx := ctx.GetTransaction().(*Transaction)
	if !ok || !isTx || t == nil || (s.fnDepth == 0 && autocommits(ctx)) {
		return func() {}
	}
	prev := s.callTx
	s.callTx = t
	return func() { s.callTx = prev }
}

// autocommits reports whether a statement run now commits at its end.
func autocommits(ctx *sql.Context) bool {
	if ctx.GetIgnoreAutoCommit() {
		return false
	}
	v, err := ctx.GetSessionVariable(ctx, "autocommit")
	return err != nil || fmt.Sprint(v) != "0"
}

// routineSQLMode sets the session's sql_mode, while the procedure of a
// CALL runs, to the one it was created with, as MySQL runs a routine
// (a function created in strict mode stays strict when a session
// without it calls it: mtr's func_rollback); the returned func restores
// the caller's.
func routineSQLMode(ctx *sql.Context, n *plan.Call) func() {
	noop := func() {}
	db, ok := n.Database().(sql.StoredProcedureDatabase)
	if !ok {
		return noop
	}
	d, found, err := db.GetStoredProcedure(ctx, n.Name)
	if err != nil || !found {
		return noop
	}
	cur, err := ctx.GetSessionVariable(ctx, "sql_mode")
	if err != nil || fmt.Sprint(cur) == d.SqlMode {
		return noop
	}
	if err := ctx.SetSessionVariable(ctx, "sql_mode", d.SqlMode); err != nil {
		return noop
	}
	return func() { _ = ctx.SetSessionVariable(ctx, "sql_mode", cur) }
}
