package sqlengine

import (
	"strings"
	"sync"

	"petrel/sqlengine/lookup"

	"petrel/sqlengine/charset"

	"petrel/sqlengine/subquery"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/sqlengine/arith"
	"petrel/sqlengine/collate"
	"petrel/sqlengine/functions"
	"petrel/sqlengine/rewrite"
)

// Analyzer rules Petrel adds to GMS's (issue 29): they let index access
// use every key column a statement gives it. GMS runs the rules of its
// package lists (AlwaysBeforeDefault, OnceAfterAll) for every statement,
// including the single-table UPDATE and DELETE that it analyses with
// batches of their own (analyzer's getBatchesForNode), which skip a
// builder's custom rules; so the rules are added to those lists, once
// per process and before any analyzer is built (Build copies them), so no
// analysis reads a list while it changes.

// Rule ids past the ones GMS v0.20.0 defines.
const (
	explainRuleID    analyzer.RuleId = 1000
	tupleInRuleID    analyzer.RuleId = 1001
	indexOrderRuleID analyzer.RuleId = 1002
	intArithRuleID   analyzer.RuleId = 1003
	collationRuleID  analyzer.RuleId = 1004
	distinctSortID   analyzer.RuleId = 1005
	likeEscapeID     analyzer.RuleId = 1006
	fullGroupByID    analyzer.RuleId = 1007
	clientCharsetID  analyzer.RuleId = 1008
	corrPushRuleID   analyzer.RuleId = 1016
	outerIndexRuleID analyzer.RuleId = 1017
	stuckSemiRuleID  analyzer.RuleId = 1009
	keepDeleteRuleID analyzer.RuleId = 1024
)

var analyzerRulesOnce sync.Once

func installAnalyzerRules() {
	analyzerRulesOnce.Do(func() {
		arith.InstallDateLayouts() // arith/datelayouts.go
		analyzer.AlwaysBeforeDefault = append(analyzer.AlwaysBeforeDefault, analyzer.Rule{Id: tupleInRuleID, Apply: tupleInToDisjunction})
		// CONVERT ... USING and introduced hex literals as MySQL's strings
		// (charset/convertusing.go), before anything reads their values.
		analyzer.AlwaysBeforeDefault = append(analyzer.AlwaysBeforeDefault, analyzer.Rule{Id: charset.ConvertRuleID, Apply: charset.ConvertRule})
		// A string literal that is no date or number compared with one in a
		// single-table UPDATE or DELETE (arith/cmptext.go).
		analyzer.AlwaysBeforeDefault = append(analyzer.AlwaysBeforeDefault, analyzer.Rule{Id: arith.BadTextRuleID, Apply: arith.BadTextRule})
		// A statement that reads a view is not DDL (viewddl.go).
		analyzer.OnceBeforeDefault = append([]analyzer.Rule{{Id: viewDDLRuleID, Apply: clearViewDDLFlag}}, analyzer.OnceBeforeDefault...)
		// Before GMS's simplifyFilters splits BETWEEN (arith/strnum.go).
		analyzer.OnceBeforeDefault = append([]analyzer.Rule{{Id: arith.MixedBetweenRuleID, Apply: arith.MixedBetweenRule}}, analyzer.OnceBeforeDefault...)
		// Before GMS's simplifyFilters, which misreads escapes (rewrite/planfix.go).
		analyzer.OnceBeforeDefault = append([]analyzer.Rule{{Id: likeEscapeID, Apply: rewrite.LikeEscapeRule}}, analyzer.OnceBeforeDefault...)
		// ONLY_FULL_GROUP_BY on the plan as built (rewrite/fullgroupby.go), in
		// place of GMS's validateGroupBy (no functional dependencies:
		// it refused GROUP BY id with other columns of the row, 1105).
		analyzer.OnceBeforeDefault = append([]analyzer.Rule{{Id: fullGroupByID, Apply: rewrite.FullGroupByRule}}, analyzer.OnceBeforeDefault...)
		// ALTER TABLE clauses after a moved column start from its new
		// order (alterorder.go).
		analyzer.OnceBeforeDefault = insertAfter(analyzer.OnceBeforeDefault, "resolveAlterColumn", analyzer.Rule{Id: alterOrderRuleID, Apply: alterOrderRule})
		// RENAME INDEX of a missing index is 1176, before GMS's check.
		analyzer.OnceBeforeDefault = insertAfter(analyzer.OnceBeforeDefault, "resolveDropConstraint", analyzer.Rule{Id: renameIndexRuleID, Apply: renameIndexRule})
		// Constants folded before the default rules pick index ranges
		// (arith/constfold.go).
		analyzer.OnceBeforeDefault = insertAfter(analyzer.OnceBeforeDefault, "simplifyFilters", analyzer.Rule{Id: arith.ConstFoldRuleID, Apply: arith.FoldConstants})
		// A DECIMAL cast to text prints at its scale (castchar.go): before
		// the folding, which would print a constant quotient's 9 digits.
		analyzer.OnceBeforeDefault = insertAfter(analyzer.OnceBeforeDefault, "simplifyFilters", analyzer.Rule{Id: castCharRuleID, Apply: castCharRule})
		// LEFT JOIN conditions on the right side alone filter it before
		// the join (rewrite/outerpush.go).
		analyzer.OnceBeforeDefault = append(analyzer.OnceBeforeDefault, analyzer.Rule{Id: rewrite.OuterPushRuleID, Apply: rewrite.PushLeftJoinConditions})
		// Conditions common to every branch of an OR taken out of it
		// (rewrite/orfactor.go), before filters are pushed to tables and joins.
		analyzer.OnceBeforeDefault = append(analyzer.OnceBeforeDefault, analyzer.Rule{Id: rewrite.OrFactorRuleID, Apply: rewrite.FactorOrConditions})
		// A multiple-table UPDATE writes each row once (exactupdate.go
		// markUpdateJoin, editor.joinDone), marked before GMS asks the
		// tables for its editors.
		analyzer.OnceBeforeDefault = append(analyzer.OnceBeforeDefault, analyzer.Rule{Id: updateJoinRuleID, Apply: markUpdateJoin})
		// CASE typed as MySQL aggregates its branches
		// (functions/branchtype.go), before CREATE TABLE ... AS SELECT
		// reads the select's schema; again after all rules below.
		analyzer.OnceBeforeDefault = append(analyzer.OnceBeforeDefault, analyzer.Rule{Id: functions.BranchTypeRuleID, Apply: functions.BranchTypeRule})
		// A set operation's converted columns keep their collation
		// (collsetop.go), before anything reads the schema.
		analyzer.OnceBeforeDefault = append([]analyzer.Rule{{Id: setOpCollationRuleID, Apply: setOpCollationRule}}, analyzer.OnceBeforeDefault...)
		// Functions GMS's parser builds without the registry, as MySQL's
		// (functions/miscfuncs.go).
		analyzer.OnceBeforeDefault = append(analyzer.OnceBeforeDefault, analyzer.Rule{Id: functions.ParsedFormsRuleID, Apply: functions.ParsedFormsRule})
		// MySQL's default window frame, peers included (functions/windowframe.go).
		analyzer.OnceBeforeDefault = append(analyzer.OnceBeforeDefault, analyzer.Rule{Id: functions.PeerFrameRuleID, Apply: functions.PeerFrameRule})
		// A DELETE without WHERE stays a DELETE (GMS's processTruncate
		// makes it a truncation, which logs no row: a replica kept the
		// rows; deleterows.go).
		// (AlwaysBeforeDefault is also the first batch of GMS's
		// single-table DELETE, whose next runs processTruncate.)
		analyzer.AlwaysBeforeDefault = append(analyzer.AlwaysBeforeDefault, analyzer.Rule{Id: keepDeleteRuleID, Apply: keepDeleteRows})
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: trigCommitRuleID, Apply: trigCommitRule})                    // trigcommit.go
		analyzer.OnceBeforeDefault = append([]analyzer.Rule{{Id: triggerPrivRuleID, Apply: triggerPrivRule}}, analyzer.OnceBeforeDefault...) // triggerpriv.go
		kept := analyzer.DefaultValidationRules[:0:0]
		for _, r := range analyzer.DefaultValidationRules {
			if r.Id.String() == "validateIntervalUsage" {
				r.Apply = arith.IntervalUseRule // arith/intervaluse.go
			}
			if r.Id.String() != "validateGroupBy" {
				kept = append(kept, r)
			}
		}
		analyzer.DefaultValidationRules = kept
		// First among the after-all rules: before exec indexes are
		// assigned and tables are wrapped for progress tracking.
		analyzer.OnceAfterAll = append([]analyzer.Rule{{Id: indexOrderRuleID, Apply: indexOrderSort}}, analyzer.OnceAfterAll...)
		// Full scans decode only the columns the statement reads
		// (scancols.go), on the plan as planned.
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll[:1:1], append([]analyzer.Rule{{Id: scanColsRuleID, Apply: scanColumns}}, analyzer.OnceAfterAll[1:]...)...)
		// Integer arithmetic as MySQL's (arith/intarith.go), before EXPLAIN
		// describes the plan.
		// CASE typed as MySQL aggregates its branches, before arithmetic
		// reads its type.
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: functions.BranchTypeRuleID, Apply: functions.BranchTypeRule})
		// ENUM and SET operands of string functions as their member text
		// (functions/enumtext.go), before collations are settled.
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: functions.EnumTextRuleID, Apply: functions.EnumTextRule})
		// A set operation's ORDER BY reads its own columns (functions/setoporder.go).
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: functions.SetOpOrderRuleID, Apply: functions.SetOpOrderRule})
		// JSON paths that match nothing are NULL (functions/jsonextract.go).
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: functions.JSONExtractRuleID, Apply: functions.JSONExtractRule})
		// NOW(n) in a select list typed DATETIME(n) (functions/nowfsp.go).
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: functions.NowPrecisionRuleID, Apply: functions.NowPrecisionRule})
		// UNIX_TIMESTAMP(ts) reads ts in the session's zone (functions/unixts.go).
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: functions.UnixTimestampZoneRuleID, Apply: functions.UnixTimestampZoneRule})
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: intArithRuleID, Apply: intArithRule})
		// A quotient written to a column stored from its longer value
		// (arith/storedquot.go), once the division operators are MySQL's.
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: arith.StoredQuotientsRuleID, Apply: arith.StoredQuotients})
		// Readers of a derived table's column take its analysed type (derivedtypes.go).
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: derivedTypesRuleID, Apply: derivedTypesRule})
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: derivedTimesRuleID, Apply: derivedTimesRule}) // derivedtimes.go
		// Aggregates over a window computed over each row's frame as over
		// a group (functions/windowagg.go), with the buffers of exact SUM
		// and AVG (arith/exactagg.go).
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: functions.FrameAggRuleID, Apply: functions.FrameAggRule})
		// IN subqueries of text compared by collation (insubqcoll.go).
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: collInSubqueryRuleID, Apply: collInSubqueryRule})
		// CAST of a DECIMAL to text at its scale (castchar.go), after the
		// arithmetic rules have typed the quotients.
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: castCharRuleID, Apply: castCharRule})
		// DOUBLE results' decimals noted for the fields (doubledecimals.go).
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: doubleDecimalsRuleID, Apply: doubleDecimalsRule})
		// Column-literal comparisons of one type compared directly
		// (arith/fastcmp.go), after index selection has read them.
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: arith.FastCmpRuleID, Apply: fastCmpRule})
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: distinctSortID, Apply: rewrite.DistinctSortRule})
		// GROUP BY columns a grouped key determines left out of the
		// grouping hash (groupfd.go), before collation keys wrap them.
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: groupKeyRuleID, Apply: groupKeyRule})
		// DISTINCT and GROUP BY keys by collation (collate/collkey.go).
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: collationRuleID, Apply: collate.Rule})
		// Results a client's character set cannot hold (charset/clientresult.go).
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: clientCharsetID, Apply: charset.ResultsRule})
		// LIKE of ASCII over bytes (collate/likefast.go), after the rules that
		// read GMS's LIKE.
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: collate.LikeRuleID, Apply: collate.LikeRule})
		// ORDER BY numbers compared directly (collate/sortcmp.go), once the
		// sort keys are final (distinctSortRule reads them).
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: collate.SortRuleID, Apply: collate.SortRule})
		// Correlated scalar subqueries remember their results by their
		// outer values (subquery/subqmemo.go).
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: subquery.MemoRuleID, Apply: memoSubqueries})
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: explainRuleID, Apply: rewrite.ExplainResult})
		// A set operation is never one row (setopmax1row.go).
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: setOpMax1RowRuleID, Apply: setOpMax1Row})
		// LOCK TABLES and the statements its locks govern (lockrule.go),
		// once triggers are applied and before tables are tracked.
		analyzer.OnceAfterAll = insertAfter(analyzer.OnceAfterAll, "applyTriggers", analyzer.Rule{Id: tableLockRuleID, Apply: tableLockRule})
		// Views under LOCK TABLES (lockrule.go), before their queries are
		// folded into the plan.
		analyzer.OnceBeforeDefault = append([]analyzer.Rule{{Id: viewLockRuleID, Apply: viewLockRule}}, analyzer.OnceBeforeDefault...)
		// CAST of a TIME to a string (functions/timetext.go).
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: functions.TimeTextRuleID, Apply: functions.TimeTextRule})
		// MIN/MAX of a key's first column (rewrite/minmaxkey.go) in place of
		// GMS's replaceAgg, which lost the NULL row of an empty input.
		// Non-deterministic calls kept out of GMS's filter folding
		// (rewrite/volatile.go).
		for i, r := range analyzer.OnceBeforeDefault {
			if r.Id.String() == "simplifyFilters" {
				rewrite.SimplifyFiltersRule = r.Apply
				analyzer.OnceBeforeDefault[i] = analyzer.Rule{Id: r.Id, Apply: rewrite.SimplifyFiltersKeepingVolatile}
			}
		}
		for i, r := range analyzer.OnceAfterDefault {
			switch r.Id.String() {
			case "unnestExistsSubqueries":
				// NOT EXISTS's NULLs (lookup/antilookup.go).
				lookup.UnnestExistsRule = r.Apply
				analyzer.OnceAfterDefault[i] = analyzer.Rule{Id: r.Id, Apply: lookup.ExistsAntiJoins}
			case "replaceAgg":
				analyzer.OnceAfterDefault[i] = analyzer.Rule{Id: rewrite.MinMaxKeyRuleID, Apply: rewrite.MinMaxOnKey}
			case "replaceIdxSort":
				rewrite.IdxSortRule = r.Apply
			}
		}
		// Correlated subqueries' index lookups (lookup/correlated.go): around
		// GMS's join planning.
		analyzer.OnceAfterDefault = insertAfter(analyzer.OnceAfterDefault, "pushFilters", analyzer.Rule{Id: corrPushRuleID, Apply: lookup.PushCorrelatedFilters})
		// A set operation's DECIMAL columns typed from its analysed sides
		// (setoptypes.go), before GMS checks that the sides match.
		analyzer.OnceAfterDefault = insertAfter(analyzer.OnceAfterDefault, "finalizeUnions", analyzer.Rule{Id: setOpTypesRuleID, Apply: setOpTypesRule})
		analyzer.OnceAfterDefault = insertAfter(analyzer.OnceAfterDefault, "optimizeJoins", analyzer.Rule{Id: outerIndexRuleID, Apply: lookup.OuterIndexLookups})
		// NOT EXISTS read by an index (lookup/antilookup.go), after GMS's join
		// planning chose a nested-loop anti join.
		analyzer.OnceAfterDefault = insertAfter(analyzer.OnceAfterDefault, "optimizeJoins", analyzer.Rule{Id: lookup.AntiLookupRuleID, Apply: lookup.AntiJoinLookups})
		// Semi joins onto grouped subqueries (rewrite/stuckjoin.go): just before
		// GMS's join planning, whose rule it calls.
		for i, r := range analyzer.OnceAfterDefault {
			if r.Id.String() == "optimizeJoins" {
				rewrite.OptimizeJoinsRule = r.Apply
				analyzer.OnceAfterDefault = append(analyzer.OnceAfterDefault[:i:i], append([]analyzer.Rule{{Id: stuckSemiRuleID, Apply: rewrite.StuckSemiJoins}}, analyzer.OnceAfterDefault[i:]...)...)
				break
			}
		}
	})
}

// insertAfter returns rules with r after the rule named after (GMS's
// RuleId names), or at the end if there is none.
func insertAfter(rules []analyzer.Rule, after string, r analyzer.Rule) []analyzer.Rule {
	for i, x := range rules {
		if x.Id.String() == after {
			return append(rules[:i+1:i+1], append([]analyzer.Rule{r}, rules[i+1:]...)...)
		}
	}
	return append(rules, r)
}

// maxTupleInRows bounds the row-constructor IN lists rewritten by
// tupleInToDisjunction (each row becomes one index range).
const maxTupleInRows = 256

// tupleInToDisjunction rewrites a WHERE conjunct `(c1, c2, ...) IN ((v1,
// v2, ...), ...)` over a table with an index led by one of the columns
// into `(c1 = v1 AND c2 = v2 ...) OR ...`, which GMS's index coster turns
// into one range per row (TPC-C's delivery deletes, updates and reads its
// orders so; GMS indexes a single column's IN list but not a row's, and
// scanned, and locked, whole tables). As a conjunct of WHERE only TRUE
// matters, and both forms are TRUE for the same rows when every value is
// a non-NULL literal of its column's kind (an integer for an integer
// column, a string for a string column), compared in the column's type
// either way; other lists are left as written.
func tupleInToDisjunction(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		f, ok := n.(*plan.Filter)
		if !ok {
			return n, transform.SameTree, nil
		}
		name, tb := filteredTable(f.Child)
		if tb == nil {
			return n, transform.SameTree, nil
		}
		conj := expression.SplitConjunction(f.Expression)
		changed := false
		for i, e := range conj {
			if or := tupleInDisjunction(ctx, e, name, tb); or != nil {
				conj[i], changed = or, true
			}
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		return plan.NewFilter(expression.JoinAnd(conj...), f.Child), transform.NewTree, nil
	})
}

// filteredTable returns the name (or alias) and Petrel table a filter's
// child reads, if it is one.
func filteredTable(n sql.Node) (string, *Table) {
	name, t := lookup.FilteredTable(n)
	tb, _ := t.(*Table)
	if tb == nil {
		return "", nil
	}
	return name, tb
}

func tupleInDisjunction(ctx *sql.Context, e sql.Expression, table string, tb *Table) sql.Expression {
	in, ok := e.(*expression.InTuple)
	if !ok {
		return nil
	}
	left, ok := in.Left().(expression.Tuple)
	if !ok || len(left) < 2 {
		return nil
	}
	rows, ok := in.Right().(expression.Tuple)
	if !ok || len(rows) == 0 || len(rows) > maxTupleInRows {
		return nil
	}
	var cols []*expression.GetField
	for _, l := range left {
		gf, ok := l.(*expression.GetField)
		if !ok || !strings.EqualFold(gf.Table(), table) {
			return nil
		}
		cols = append(cols, gf)
	}
	if !leadsAnIndex(tb, cols) {
		return nil
	}
	var ors []sql.Expression
	for _, r := range rows {
		vals, ok := r.(expression.Tuple)
		if !ok || len(vals) != len(cols) {
			return nil
		}
		var ands []sql.Expression
		for j, v := range vals {
			lit, ok := v.(*expression.Literal)
			if !ok || !sameKind(ctx, cols[j].Type(), lit) {
				return nil
			}
			ands = append(ands, expression.NewEquals(cols[j], lit))
		}
		ors = append(ors, expression.JoinAnd(ands...))
	}
	return expression.JoinOr(ors...)
}

// leadsAnIndex reports whether an index of tb starts with one of cols.
func leadsAnIndex(tb *Table, cols []*expression.GetField) bool {
	lead := func(o int) bool {
		for _, c := range cols {
			if strings.EqualFold(c.Name(), tb.t.Schema[o].Name) {
				return true
			}
		}
		return false
	}
	if !tb.t.Hidden && len(tb.t.Def.PK) > 0 && lead(tb.t.Def.PK[0]) {
		return true
	}
	for _, ix := range tb.t.Indexes {
		if len(ix.Ords) > 0 && lead(ix.Ords[0]) {
			return true
		}
	}
	return false
}

// sameKind reports whether lit is a non-NULL integer for an integer column
// or a string for a string column, its value taken by the column's type
// unchanged.
func sameKind(ctx *sql.Context, col sql.Type, lit *expression.Literal) bool {
	v := lit.Value()
	if v == nil {
		return false
	}
	switch {
	case types.IsInteger(col) && types.IsInteger(lit.Type()):
	case types.IsText(col) && types.IsText(lit.Type()):
	default:
		return false
	}
	cv, inRange, err := col.Convert(ctx, v)
	if err != nil || inRange != sql.InRange || cv == nil {
		return false
	}
	c, err := col.Compare(ctx, v, cv)
	return err == nil && c == 0
}

// indexOrderSort drops a sort that a Petrel index lookup already
// delivers: ORDER BY columns that follow, in the index, columns every
// range of the lookup fixes to one value (TPC-C's delivery: `WHERE
// no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1 FOR UPDATE` over
// PRIMARY KEY (no_w_id, no_d_id, no_o_id)). GMS drops a sort only for
// ORDER BY a prefix of the index's columns, so such a query read, sorted
// and (FOR UPDATE) locked the whole district to return one row; in index
// order, LIMIT stops the scan at the rows it returns. A descending ORDER
// BY scans the index backwards. A sort with a LIMIT (TopN) becomes the
// LIMIT.
func indexOrderSort(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		var fields sql.SortFields
		var child sql.Node
		var limit sql.Expression
		switch s := n.(type) {
		case *plan.Sort:
			fields, child = s.SortFields, s.Child
		case *plan.TopN:
			if s.CalcFoundRows {
				return n, transform.SameTree, nil
			}
			fields, child, limit = s.Fields, s.Child, s.Limit
		default:
			return n, transform.SameTree, nil
		}
		ordered, ok, err := inIndexOrder(ctx, child, fields)
		if err != nil || !ok {
			return n, transform.SameTree, err
		}
		if limit != nil {
			return plan.NewLimit(limit, ordered), transform.NewTree, nil
		}
		return ordered, transform.NewTree, nil
	})
}

// inIndexOrder returns n reading its rows in the order of fields, if a
// static lookup into a Petrel index under n (through projections and
// filters, which keep order) can: one range, fixing the index columns
// before the sort columns to one value each. ok is false otherwise.
func inIndexOrder(ctx *sql.Context, n sql.Node, fields sql.SortFields) (sql.Node, bool, error) {
	switch c := n.(type) {
	case *plan.Project:
		ch, ok, err := inIndexOrder(ctx, c.Child, fields)
		if !ok || err != nil {
			return n, ok, err
		}
		nn, err := c.WithChildren(ch)
		return nn, err == nil, err
	case *plan.Filter:
		ch, ok, err := inIndexOrder(ctx, c.Child, fields)
		if !ok || err != nil {
			return n, ok, err
		}
		nn, err := c.WithChildren(ch)
		return nn, err == nil, err
	case *plan.IndexedTableAccess:
		return orderedLookup(ctx, c, fields)
	}
	return n, false, nil
}

func orderedLookup(ctx *sql.Context, ita *plan.IndexedTableAccess, fields sql.SortFields) (sql.Node, bool, error) {
	if !ita.IsStatic() || len(fields) == 0 {
		return ita, false, nil
	}
	lk, err := ita.GetLookup(ctx, nil)
	if err != nil {
		return ita, false, nil
	}
	ix, ok := lk.Index.(*Index)
	ranges, rok := lk.Ranges.(sql.MySQLRangeCollection)
	if !ok || !rok || len(ranges) != 1 || lk.IsReverse || lk.IsEmptyRange {
		return ita, false, nil
	}
	desc := fields[0].Order == sql.Descending
	ords := ix.extendedOrds()
	// fixed: the leading columns the range holds to one value.
	fixed := 0
	for fixed < len(ranges[0]) && fixed < len(ords) && lookup.PointColumn(ctx, ranges[0][fixed]) {
		fixed++
	}
	sch := ix.t.t.Schema
	if fixed+len(fields) > len(ords) {
		return ita, false, nil
	}
	for i, f := range fields {
		gf, ok := f.Column.(*expression.GetField)
		if !ok || (f.Order == sql.Descending) != desc || !strings.EqualFold(gf.Name(), sch[ords[fixed+i]].Name) ||
			!strings.EqualFold(gf.Table(), ita.Name()) {
			return ita, false, nil
		}
	}
	if !desc {
		return ita, true, nil
	}
	rev := sql.NewIndexLookup(lk.Index, ranges, lk.IsPointLookup, lk.IsEmptyRange, lk.IsSpatialLookup, true)
	nn, err := plan.NewStaticIndexedAccessForTableNode(ctx, ita.TableNode, rev)
	if err != nil {
		return ita, false, err
	}
	return nn, true, nil
}

// memoSubqueries wraps the correlated scalar subqueries of a read-only
// statement (after all of GMS's rules: exec indexes are final).
func memoSubqueries(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, scope *plan.Scope, _ analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if !scope.IsEmpty() || (qFlags != nil && !qFlags.SubqueryIsSet()) || !n.IsReadOnly() {
		return n, transform.SameTree, nil
	}
	e := engineOf(ctx)
	if e == nil {
		return n, transform.SameTree, nil
	}
	return subquery.Memo(n, &e.subqueryCache)
}

// fastCmpRule puts fastCmp in place of such comparisons in filters,
// after index selection has read them (OnceAfterAll).
func fastCmpRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		fast := func(cond sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			return transform.Expr(cond, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
				if c := arith.NewFastCmp(e); c != nil {
					return c, transform.NewTree, nil
				}
				if in := arith.NewFastIn(e); in != nil {
					return in, transform.NewTree, nil
				}
				return e, transform.SameTree, nil
			})
		}
		if h, ok := n.(*plan.Having); ok {
			// HAVING SUM(x) > 314 (TPC-H Q18), once per group.
			e, same, err := fast(h.Cond)
			if err != nil || same == transform.SameTree {
				return n, transform.SameTree, err
			}
			return plan.NewHaving(e, h.Child), transform.NewTree, nil
		}
		f, ok := n.(*plan.Filter)
		if !ok {
			return n, transform.SameTree, nil
		}
		e, same, err := fast(f.Expression)
		if err != nil {
			return n, transform.SameTree, err
		}
		child := withPrefilter(ctx, e, f.Child)
		if same == transform.SameTree && child == f.Child {
			return n, transform.SameTree, nil
		}
		return plan.NewFilter(e, child), transform.NewTree, nil
	})
}
