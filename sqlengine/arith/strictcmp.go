package arith

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// A string compared with a number in a statement that changes rows under
// strict mode (StrictWrite): text that is no number fails the statement
// with 1292, as MySQL 8's strict mode makes the warning an error
// (WL#6891): `UPDATE t SET n = n + 1 WHERE v = 0` over a row whose v is
// 'abc' is refused, where GMS warned and updated the rows 'abc' = 0
// matched. A SELECT keeps the warning.

// strictComparisons marks the string-number comparisons (strDouble,
// strBetween) of e strict; e itself when it has none.
func strictComparisons(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	return transform.Expr(e, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch x := e.(type) {
		case *strDouble:
			if !x.strict {
				return &strDouble{child: x.child, strict: true}, transform.NewTree, nil
			}
		case *strBetween:
			if !x.strict {
				return &strBetween{val: x.val, lo: x.lo, hi: x.hi, strict: true}, transform.NewTree, nil
			}
		}
		return e, transform.SameTree, nil
	})
}

// writeComparisons is the expression rule of a single-table UPDATE's or
// DELETE's conditions, which FoldConstants does not see: its
// string-number comparisons read through strDouble (strNumExpr), with
// 1292 (GMS's comparison warned nothing), strict in a strict write.
func writeComparisons(e sql.Expression, strict bool) (sql.Expression, transform.TreeIdentity, error) {
	ne, same, err := transform.Expr(e, strNumExpr)
	if err != nil || !strict {
		return ne, same, err
	}
	ne, sameStrict, err := strictComparisons(ne)
	if err != nil {
		return e, transform.SameTree, err
	}
	return ne, same && sameStrict, nil
}
