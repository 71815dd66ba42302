package arith

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/analyzer/analyzererrors"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// An INTERVAL is valid only as an operand of DATE_ADD, DATE_SUB, + or -
// (1105 "invalid use of an interval" otherwise, as GMS's check). GMS's
// validateIntervalUsage took Petrel's DATE_ADD (dateRange, dateShift)
// for some other function, so a derived table or a view over `d +
// INTERVAL 1 DAY`, whose SELECT the after-all rules had rewritten before
// the outer statement was validated, failed: `SELECT * FROM (SELECT d +
// INTERVAL 1 DAY x FROM t) s` and CREATE VIEW ... AS SELECT DATE_ADD(...)
// (mtr func_date_add, view_alias). IntervalUseRule is the check with
// Petrel's expressions known; planrules.go puts it in place of GMS's.

// intervalHost is a Petrel expression whose INTERVAL child is DATE_ADD's
// or DATE_SUB's.
type intervalHost interface{ hostsInterval() }

func (d *dateRange) hostsInterval() {}
func (d *dateShift) hostsInterval() {}

// IntervalUseRule fails the statement whose expressions hold an
// INTERVAL other than as an operand of DATE_ADD, DATE_SUB, + or -.
func IntervalUseRule(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if !analyzer.FlagIsSet(qFlags, sql.QFlagInterval) {
		return n, transform.SameTree, nil
	}
	invalid := false
	transform.InspectExpressionsWithNode(n, func(node sql.Node, e sql.Expression) bool {
		if invalid {
			return false
		}
		switch node.(type) {
		case *plan.CreateEvent, *plan.AlterEvent:
			return false // an event's schedule takes intervals
		}
		switch x := e.(type) {
		case *function.DateAdd, *function.DateSub, intervalHost:
			return false
		case *expression.Arithmetic:
			if x.Op == "+" || x.Op == "-" {
				return false
			}
		case *expression.Interval:
			invalid = true
		}
		return true
	})
	if invalid {
		return nil, transform.SameTree, analyzererrors.ErrIntervalInvalidUse.New()
	}
	return n, transform.SameTree, nil
}
