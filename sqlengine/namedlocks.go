package sqlengine

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
)

// RELEASE_LOCK(name) of a lock no session holds is NULL, as MySQL's: a
// named lock exists only while held ("the lock does not exist if it
// was never obtained by a call to GET_LOCK() or if it has previously
// been released"). GMS's lock table keeps a released lock as free, so
// its RELEASE_LOCK answered 0 ("held by another session") for it
// (mtr's information_schema_columns).

// releaseLockFunction is RELEASE_LOCK over GMS's, for ls's locks.
func releaseLockFunction(ls *sql.LockSubsystem) sql.Function {
	gms := function.NewReleaseLock(ls)
	return sql.Function1{Name: "release_lock", Fn: func(arg sql.Expression) sql.Expression {
		return &releaseLock{ReleaseLock: gms(arg).(*function.ReleaseLock), ls: ls, gms: gms}
	}}
}

type releaseLock struct {
	*function.ReleaseLock
	ls  *sql.LockSubsystem
	gms sql.CreateFunc1Args
}

var _ sql.FunctionExpression = (*releaseLock)(nil)

func (r *releaseLock) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	name, err := r.GetLockName(ctx, row)
	if err != nil || name == nil {
		return nil, err
	}
	if state, _ := r.ls.GetLockState(*name); state != sql.LockInUse {
		return nil, nil
	}
	return r.ReleaseLock.Eval(ctx, row)
}

func (r *releaseLock) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("sqlengine: RELEASE_LOCK takes 1 argument, got %d", len(children))
	}
	return &releaseLock{ReleaseLock: r.gms(children[0]).(*function.ReleaseLock), ls: r.ls, gms: r.gms}, nil
}
