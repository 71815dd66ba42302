package sqlengine

import (
	"strings"

	"petrel/sqlengine/rewrite"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// GROUP BY columns a grouped key determines are not hashed. TPC-H Q10
// groups by c_custkey, c_name, c_acctbal, c_phone, n_name, c_address,
// c_comment: customer's primary key and six columns it determines (one
// customer row per key value in every joined row, NULLs included on an
// outer join's side), so the groups are those of c_custkey and n_name.
// GMS hashes every grouping value of every row, strings through their
// collation's weights: Q10 spent 320 ms grouping 11,474 rows, mostly on
// c_comment and c_address. The determined columns keep their place in
// the select list (a group's first value, the only one). Only columns of
// base tables named once in the grouped input, outside derived tables.

const groupKeyRuleID analyzer.RuleId = 1020

func groupKeyRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		gb, ok := n.(*plan.GroupBy)
		if !ok || len(gb.GroupByExprs) < 2 {
			return n, transform.SameTree, nil
		}
		kept := determinedPruned(ctx, gb)
		if kept == nil {
			return n, transform.SameTree, nil
		}
		ngb := *gb
		ngb.GroupByExprs = kept
		return &ngb, transform.NewTree, nil
	})
}

// determinedPruned returns gb's grouping expressions without the
// columns its other grouped columns determine; nil when none is.
func determinedPruned(ctx *sql.Context, gb *plan.GroupBy) []sql.Expression {
	tables := groupedTables(gb.Child)
	grouped := map[string]map[string]bool{}
	for _, e := range gb.GroupByExprs {
		if gf, ok := e.(*expression.GetField); ok {
			t := strings.ToLower(gf.Table())
			if grouped[t] == nil {
				grouped[t] = map[string]bool{}
			}
			grouped[t][strings.ToLower(gf.Name())] = true
		}
	}
	// keyed: for each table whose key is grouped, that key's columns.
	keyed := map[string]map[string]bool{}
	for t, cols := range grouped {
		tb := tables[t]
		if tb == nil {
			continue
		}
		if key := groupingKeyOf(ctx, tb, cols); key != nil {
			keyed[t] = key
		}
	}
	if len(keyed) == 0 {
		return nil
	}
	var kept []sql.Expression
	for _, e := range gb.GroupByExprs {
		if gf, ok := e.(*expression.GetField); ok {
			t := strings.ToLower(gf.Table())
			if key := keyed[t]; key != nil && !key[strings.ToLower(gf.Name())] {
				continue // determined by the grouped key
			}
		}
		kept = append(kept, e)
	}
	if len(kept) == len(gb.GroupByExprs) || len(kept) == 0 {
		return nil
	}
	return kept
}

// groupingKeyOf returns the columns (lower case) of a primary key, or of
// a unique key of NOT NULL columns, of tb that cols holds; nil if none.
func groupingKeyOf(ctx *sql.Context, tb *Table, cols map[string]bool) map[string]bool {
	names := rewrite.DeterminingKey(ctx, tb, func(n string) bool { return cols[n] })
	if names == nil {
		return nil
	}
	key := map[string]bool{}
	for _, n := range names {
		key[n] = true
	}
	return key
}

// groupedTables maps the names (lower case) of the base tables read by
// n, outside derived tables and subqueries, to their tables; a name
// read twice maps to nil.
func groupedTables(n sql.Node) map[string]*Table {
	out := map[string]*Table{}
	seen := map[string]bool{}
	put := func(name string, tb *Table) {
		name = strings.ToLower(name)
		if seen[name] {
			out[name] = nil
			return
		}
		seen[name] = true
		out[name] = tb
	}
	transform.Inspect(n, func(x sql.Node) bool {
		switch x := x.(type) {
		case *plan.SubqueryAlias, *plan.SetOp, *plan.RecursiveCte, *plan.ValueDerivedTable, *plan.JSONTable:
			if nm, ok := x.(sql.Nameable); ok {
				put(nm.Name(), nil)
			}
			return false
		case *plan.TableAlias:
			var tb *Table
			if rt, ok := x.Child.(*plan.ResolvedTable); ok {
				tb, _ = resolvedTable(rt)
			}
			put(x.Name(), tb)
			return false
		case *plan.ResolvedTable:
			tb, _ := resolvedTable(x)
			put(x.Name(), tb)
			return false
		case *plan.IndexedTableAccess:
			var tb *Table
			if it, ok := x.Table.(*indexedTable); ok {
				tb = it.Table
			}
			put(x.Name(), tb)
			return false
		}
		return true
	})
	return out
}
