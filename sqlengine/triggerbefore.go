package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// A BEFORE trigger whose body sets NEW in some branch of an IF or CASE
// (`IF NEW.b = 1 THEN SET NEW.a = 100; ELSE SET @z = 1; END IF`) and
// runs another: GMS takes the row its body's last statement left as the
// new row, which for the other branch is empty, and the statement failed
// with a caught panic ("index out of range", 1105). MySQL's NEW keeps
// its values. Petrel builds BEFORE executors itself: each row is passed
// through the trigger's body as GMS does (fire, triggerdup.go), and a
// body that leaves a row of another width leaves the row unchanged.
// Executors over a multiple-table UPDATE stay GMS's (its row handler
// looks for the join's iterator under the trigger's).

// buildBeforeTrigger builds te when it is a BEFORE trigger; ok is false
// for any other executor.
func (e *Engine) buildBeforeTrigger(ctx *sql.Context, te *plan.TriggerExecutor, row sql.Row) (sql.RowIter, bool, error) {
	if te.TriggerTime != plan.BeforeTrigger {
		return nil, false, nil
	}
	if _, ok := te.Left().(*triggerRow); ok {
		return nil, false, nil // fire's own executor
	}
	join := false
	transform.Inspect(te.Left(), func(n sql.Node) bool {
		if _, ok := n.(*plan.UpdateJoin); ok {
			join = true
		}
		return !join
	})
	if join {
		return nil, false, nil
	}
	child, err := e.exec.Build(ctx, te.Left(), row)
	if err != nil {
		return nil, true, err
	}
	return &beforeTriggerIter{e: e, te: te, child: child}, true, nil
}

// beforeTriggerIter passes each row of child through a BEFORE trigger.
type beforeTriggerIter struct {
	e     *Engine
	te    *plan.TriggerExecutor
	child sql.RowIter
}

func (it *beforeTriggerIter) Next(ctx *sql.Context) (sql.Row, error) {
	r, err := it.child.Next(ctx)
	if err != nil {
		return r, err
	}
	out, err := it.e.fire(ctx, it.te, r)
	if err != nil {
		return nil, err
	}
	if len(out) != len(r) {
		return r, nil
	}
	return out, nil
}

func (it *beforeTriggerIter) Close(ctx *sql.Context) error { return it.child.Close(ctx) }
