package node_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sameNumber reports whether a result's decimal text is the integer n.
func sameNumber(text string, n int) bool {
	f, err := strconv.ParseFloat(text, 64)
	return err == nil && f == float64(n)
}

// TestSemiJoinOntoGroupedSubquery: TPC-H Q18's `o_orderkey IN (SELECT
// l_orderkey FROM lineitem GROUP BY l_orderkey HAVING sum(l_quantity) >
// ?)` is a hash semi join onto the grouped subquery (built once) over a
// planned join of customer, orders and lineitem, not nested loops over
// the three tables that evaluate the subquery again for every row; its
// rows equal a model of the data; rows read stay within one pass over
// each table plus the qualifying orders' lines (the semi join filters
// orders before the joins).
func TestSemiJoinOntoGroupedSubquery(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	const customers, orders, threshold = 300, 3000, 150
	lines := func(o int) int { return 1 + o%7 }
	qty := func(o, n int) int { return 1 + (o*n*13)%50 }
	mustExec(t, db, "CREATE DATABASE tpch", "USE tpch",
		"CREATE TABLE customer (C_CUSTKEY BIGINT NOT NULL, C_NAME VARCHAR(25) NOT NULL, PRIMARY KEY (C_CUSTKEY))",
		"CREATE TABLE orders (O_ORDERKEY BIGINT NOT NULL, O_CUSTKEY BIGINT NOT NULL, O_TOTALPRICE DECIMAL(15,2) NOT NULL, O_ORDERDATE DATE NOT NULL, PRIMARY KEY (O_ORDERKEY))",
		"CREATE TABLE lineitem (L_ORDERKEY BIGINT NOT NULL, L_LINENUMBER BIGINT NOT NULL, L_QUANTITY DECIMAL(15,2) NOT NULL, PRIMARY KEY (L_ORDERKEY, L_LINENUMBER))")
	var cs, os, ls []string
	for c := 1; c <= customers; c++ {
		cs = append(cs, fmt.Sprintf("(%d, 'Customer#%03d')", c, c))
	}
	type row struct{ c, o, sum int }
	var want []row
	var allQualifying []int
	for o := 1; o <= orders; o++ {
		c := 1 + (o*7)%customers
		os = append(os, fmt.Sprintf("(%d, %d, %d.00, '1995-%02d-%02d')", o, c, o, 1+o%12, 1+o%28))
		sum := 0
		for n := 1; n <= lines(o); n++ {
			ls = append(ls, fmt.Sprintf("(%d, %d, %d)", o, n, qty(o, n)))
			sum += qty(o, n)
		}
		if sum > threshold {
			want = append(want, row{c, o, sum})
			allQualifying = append(allQualifying, o)
		}
	}
	mustExec(t, db, "INSERT INTO customer VALUES "+strings.Join(cs, ","))
	for lo := 0; lo < len(os); lo += 1000 {
		mustExec(t, db, "INSERT INTO orders VALUES "+strings.Join(os[lo:min(lo+1000, len(os))], ","))
	}
	for lo := 0; lo < len(ls); lo += 1000 {
		mustExec(t, db, "INSERT INTO lineitem VALUES "+strings.Join(ls[lo:min(lo+1000, len(ls))], ","))
	}
	// go-tpc v1.0.7's Q18 with this population's threshold.
	q18 := fmt.Sprintf(`select c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity)
from customer, orders, lineitem
where o_orderkey in (select l_orderkey from lineitem group by l_orderkey having sum(l_quantity) > %d)
	and c_custkey = o_custkey and o_orderkey = l_orderkey
group by c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
order by o_totalprice desc, o_orderdate
limit 100`, threshold)
	// The model: orders by total price (= o) descending, the first 100.
	slices.SortFunc(want, func(a, b row) int { return b.o - a.o })
	want = want[:min(100, len(want))]
	for _, stage := range []string{"fresh", "analysed"} {
		if stage == "analysed" {
			mustExec(t, db, "ANALYZE TABLE customer, orders, lineitem")
		}
		plan := explain(t, db, q18)
		if !strings.Contains(plan, "SemiHashJoin") || strings.Contains(plan, "InnerJoin") || strings.Contains(plan, "─ SemiJoin") {
			// Fatal: the nested loops would run for minutes.
			t.Fatalf("%s: Q18's plan:\n%s\nwant a hash semi join over a planned join", stage, plan)
		}
		before := statusInt(t, db, "Innodb_rows_read")
		got := queryRows(t, db, q18)
		read := statusInt(t, db, "Innodb_rows_read") - before
		if len(got) != len(want) {
			t.Fatalf("%s: Q18 returned %d rows, want %d", stage, len(got), len(want))
		}
		for i, w := range want {
			if g := got[i]; g[0] != fmt.Sprintf("Customer#%03d", w.c) || g[1] != fmt.Sprint(w.c) || g[2] != fmt.Sprint(w.o) || !sameNumber(g[5], w.sum) {
				t.Errorf("%s: row %d = %v, want customer %d, order %d, sum %d", stage, i, g, w.c, w.o, w.sum)
			}
		}
		// Each table once, lineitem for the grouped subquery, and the
		// lines of the qualifying orders only: the semi join filters
		// orders before the joins (stuckjoin.go's semiOntoProbe), where
		// over the whole join it read every order's lines again.
		qualifying := 0
		for _, w := range allQualifying {
			qualifying += lines(w)
		}
		// Before ANALYZE (statistics may or may not have been gathered
		// in the background yet) the join may be planned with orders on
		// a lookup's inner side, where the semi join cannot go: each
		// table once and lineitem twice, no more than twice that.
		bound := int64(customers + orders + len(ls) + 2*qualifying)
		if stage == "fresh" {
			bound = int64(2 * (customers + orders + 2*len(ls)))
		}
		if read > bound {
			t.Errorf("%s: Q18 read %d rows, want at most %d", stage, read, bound)
		}
		t.Logf("%s: Q18 read %d rows (customers %d, orders %d, lines %d, qualifying orders' lines %d)", stage, read, customers, orders, len(ls), qualifying)
	}
}
