package rewrite

import (
	"fmt"
	"strings"

	"petrel/sqlengine/sqlmode"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"petrel/internal/mysqlerr"
)

// ONLY_FULL_GROUP_BY (in MySQL 8's default sql_mode, and Petrel's): a
// grouped query may select, order by or filter on a column outside its
// aggregates only when the GROUP BY determines it: the column is grouped
// by, or a primary key or NOT NULL unique key of its table is, or WHERE
// fixes it (col = constant, or col = a grouped column). Otherwise error
// 1055 (1140 for an aggregate query without GROUP BY). GMS accepts such
// queries and returns an arbitrary row's value.
//
// The check is MySQL's for a query over one table (with or without WHERE).
// Over joins, derived tables and views MySQL derives dependencies further
// (through join equalities and keys); there the check is not made, so a
// query MySQL would refuse may run: never the other way round. It runs
// before GMS's rules, on the plan as built from the statement, where
// WHERE is still a Filter above the table.

func FullGroupByRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if !sqlmode.On(sqlmode.Load(ctx), "ONLY_FULL_GROUP_BY") {
		return n, transform.SameTree, nil
	}
	var err error
	var check func(n sql.Node, above []sql.Node)
	check = func(n sql.Node, above []sql.Node) {
		if err != nil {
			return
		}
		if gb, ok := n.(*plan.GroupBy); ok {
			if err = checkFullGroupBy(ctx, gb, above); err != nil {
				return
			}
		}
		switch n.(type) {
		case *plan.Project, *plan.Having, *plan.Sort, *plan.TopN, *plan.Limit, *plan.Distinct, *plan.Offset:
			above = append(above, n)
		default:
			above = nil
		}
		for _, c := range n.Children() {
			check(c, above)
		}
	}
	check(n, nil)
	return n, transform.SameTree, err
}

func checkFullGroupBy(ctx *sql.Context, gb *plan.GroupBy, above []sql.Node) error {
	// The one table under the grouping, and WHERE's conjuncts.
	var filters []sql.Expression
	var table sql.Table
	var tableName string
	for node := gb.Child; table == nil; {
		switch x := node.(type) {
		case *plan.Filter:
			filters = append(filters, expression.SplitConjunction(x.Expression)...)
			node = x.Child
		case *plan.TableAlias:
			rt, ok := x.Child.(*plan.ResolvedTable)
			if !ok {
				return nil
			}
			table, tableName = rt.Table, x.Name()
		case *plan.ResolvedTable:
			table, tableName = x.Table, x.Name()
		default:
			return nil // joins, derived tables, ...: not checked
		}
	}
	if len(gb.SelectedExprs) == 0 {
		return nil
	}
	grouped := map[string]bool{} // lower-cased column names, and expressions' text
	for _, g := range gb.GroupByExprs {
		g = Unalias(g)
		if f, ok := g.(*expression.GetField); ok {
			grouped[strings.ToLower(f.Name())] = true
		}
		grouped["expr:"+strings.ToLower(g.String())] = true
	}
	fixed := map[string]bool{}
	for _, f := range filters {
		eq, ok := f.(*expression.Equals)
		if !ok {
			continue
		}
		l, r := eq.Left(), eq.Right()
		for _, side := range [][2]sql.Expression{{l, r}, {r, l}} {
			c, ok := side[0].(*expression.GetField)
			if !ok {
				continue
			}
			if o, isField := side[1].(*expression.GetField); isField && !grouped[strings.ToLower(o.Name())] {
				continue
			}
			if hasField(side[1]) {
				if _, isField := side[1].(*expression.GetField); !isField {
					continue
				}
			}
			fixed[strings.ToLower(c.Name())] = true
		}
	}
	if keyDetermined(ctx, table, grouped, fixed) {
		return nil
	}
	// The expressions computed over the groups: the select list, HAVING
	// and ORDER BY, in the nodes above the grouping.
	// A projection below the top one only passes columns up to it (GMS
	// adds them for ORDER BY), so only the top one's are the select list.
	var exprs []sql.Expression
	seenProject := false
	for _, a := range above {
		switch a.(type) {
		case *plan.Project:
			if seenProject {
				continue
			}
			seenProject = true
		case *plan.Sort, *plan.TopN:
			if len(gb.GroupByExprs) == 0 {
				// ORDER BY of a one-row aggregate: not checked (MySQL
				// drops it; refusing it could refuse what MySQL runs).
				continue
			}
		}
		if ex, ok := a.(sql.Expressioner); ok {
			exprs = append(exprs, ex.Expressions()...)
		}
	}
	for i, se := range exprs {
		if a, ok := se.(*expression.Alias); ok && grouped[strings.ToLower(a.Name())] {
			continue // grouped by its alias
		}
		if col := looseColumn(Unalias(se), tableName, grouped, fixed); col != nil {
			name := fmt.Sprintf("%s.%s", tableName, col.Name())
			if db := col.Database(); db != "" {
				name = db + "." + name
			}
			if len(gb.GroupByExprs) == 0 {
				return mysqlerr.New(mysqlerr.ErMixOfGroupFuncAndFields, "In aggregated query without GROUP BY, expression #%d of SELECT list contains nonaggregated column '%s'; this is incompatible with sql_mode=only_full_group_by", i+1, name)
			}
			return mysqlerr.New(mysqlerr.ErWrongFieldWithGroup, "Expression #%d of SELECT list is not in GROUP BY clause and contains nonaggregated column '%s' which is not functionally dependent on columns in GROUP BY clause; this is incompatible with sql_mode=only_full_group_by", i+1, name)
		}
	}
	return nil
}

// looseColumn is a column of the grouped table that e reads outside
// any aggregate and any grouped expression, and that the grouping does
// not determine; or nil.
func looseColumn(e sql.Expression, table string, grouped, fixed map[string]bool) *expression.GetField {
	if grouped["expr:"+strings.ToLower(e.String())] {
		return nil
	}
	switch y := e.(type) {
	case sql.Aggregation, sql.WindowAggregation:
		return nil // its arguments are aggregated
	case *expression.GetField:
		if table == "" || !strings.EqualFold(y.Table(), table) {
			return nil // an aggregate's result, an alias, another scope
		}
		if n := strings.ToLower(y.Name()); !grouped[n] && !fixed[n] {
			return y
		}
		return nil
	}
	for _, c := range e.Children() {
		if l := looseColumn(c, table, grouped, fixed); l != nil {
			return l
		}
	}
	return nil
}

func hasField(e sql.Expression) bool {
	return transform.InspectExpr(e, func(x sql.Expression) bool {
		_, ok := x.(*expression.GetField)
		return ok
	})
}

// keyDetermined reports whether the grouped (or WHERE-fixed) columns
// hold a primary key or a NOT NULL unique key of t: then every column of
// t is determined.
func keyDetermined(ctx *sql.Context, t sql.Table, grouped, fixed map[string]bool) bool {
	return DeterminingKey(ctx, t, func(n string) bool { return grouped[n] || fixed[n] }) != nil
}

// determiningKey returns the lower-case columns of t's primary key, or of
// a unique key of NOT NULL columns, that have holds (it is given
// lower-case names); nil if there is none.
func DeterminingKey(ctx *sql.Context, t sql.Table, have func(string) bool) []string {
	sch := t.Schema()
	var pk []string
	all := true
	for _, c := range sch {
		if c.PrimaryKey {
			n := strings.ToLower(c.Name)
			pk = append(pk, n)
			all = all && have(n)
		}
	}
	if len(pk) > 0 && all {
		return pk
	}
	ia, ok := t.(sql.IndexAddressable)
	if !ok {
		return nil
	}
	ixs, err := ia.GetIndexes(ctx)
	if err != nil {
		return nil
	}
	for _, ix := range ixs {
		if !ix.IsUnique() {
			continue
		}
		var names []string
		for _, ce := range ix.Expressions() {
			name := strings.ToLower(ce[strings.LastIndexByte(ce, '.')+1:])
			i := sch.IndexOfColName(name)
			if i < 0 || sch[i].Nullable || !have(name) {
				names = nil
				break
			}
			names = append(names, name)
		}
		if names != nil {
			return names
		}
	}
	return nil
}
