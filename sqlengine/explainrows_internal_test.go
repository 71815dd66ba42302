package sqlengine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
)

// explainEnv is a statistics environment with two analysed tables:
// cust (2,000 rows, region = id % 20: 100 rows per region) and ord
// (8,000 rows: 2,000 orders of 4 lines, keyed (oid, ln), cid = oid, amt
// = (oid*4+ln) % 50).
func explainEnv(t *testing.T) (*statsEnv, func(string) []sql.Row) {
	t.Helper()
	setAutoRecalc(t, false)
	t.Cleanup(func() { setAutoRecalc(t, true) })
	env := openStatsEnv(t, t.TempDir())
	t.Cleanup(env.close)
	env.must("CREATE DATABASE d")
	env.s.SetCurrentDatabase("d")
	env.must("CREATE TABLE cust (id INT NOT NULL PRIMARY KEY, region INT, name VARCHAR(20), KEY kr (region))")
	env.must("CREATE TABLE ord (oid INT NOT NULL, ln INT NOT NULL, cid INT, amt INT, PRIMARY KEY (oid, ln), KEY kc (cid))")
	var cs, os []string
	for id := 1; id <= 2000; id++ {
		cs = append(cs, fmt.Sprintf("(%d, %d, 'c%d')", id, id%20, id))
		for ln := 1; ln <= 4; ln++ {
			os = append(os, fmt.Sprintf("(%d, %d, %d, %d)", id, ln, id, (id*4+ln)%50))
		}
	}
	env.must("INSERT INTO cust VALUES " + strings.Join(cs, ","))
	env.must("INSERT INTO ord VALUES " + strings.Join(os, ","))
	env.must("ANALYZE TABLE cust, ord")
	rows := func(q string) []sql.Row {
		t.Helper()
		ctx := env.e.NewContext(context.Background(), env.s).WithQuery(q)
		_, iter, _, err := env.e.GMS().Query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		out, err := sql.RowIterToRows(ctx, iter)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return out
	}
	return env, rows
}

// count is the number a one-row, one-column query returns.
func count(t *testing.T, rows func(string) []sql.Row, q string) float64 {
	t.Helper()
	r := rows(q)
	n, err := strconv.ParseFloat(fmt.Sprint(r[0][0]), 64)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// within reports whether est is within factor f of actual (both taken
// as at least 1).
func within(est, actual, f float64) bool {
	est, actual = math.Max(est, 1), math.Max(actual, 1)
	return est <= actual*f && est >= actual/f
}

// TestTraditionalExplain: EXPLAIN answers a row per table access with
// MySQL's access type, key, ref and Petrel's row estimate (a number,
// within a factor of 2 of the rows the access matches), and filtered as
// a number.
func TestTraditionalExplain(t *testing.T) {
	env, rows := explainEnv(t)
	type want struct {
		table, typ, key, ref string
		truth                string // a COUNT(*) the access's rows estimate
	}
	for q, w := range map[string][]want{
		// A primary-key point lookup.
		"SELECT * FROM cust WHERE id = 17": {{"cust", "const", "PRIMARY", "const", "SELECT 1"}},
		// A composite key's prefix: 4 lines per order.
		"SELECT * FROM ord WHERE oid = 7": {{"ord", "ref", "PRIMARY", "const", "SELECT COUNT(*) FROM ord WHERE oid = 7"}},
		// A non-unique key: 100 customers per region.
		"SELECT * FROM cust WHERE region = 3": {{"cust", "ref", "kr", "const", "SELECT COUNT(*) FROM cust WHERE region = 3"}},
		// A range of the primary key, from the histogram.
		"SELECT * FROM cust WHERE id BETWEEN 100 AND 299": {{"cust", "range", "PRIMARY", "", "SELECT COUNT(*) FROM cust WHERE id BETWEEN 100 AND 299"}},
		"SELECT * FROM ord WHERE cid < 500":               {{"ord", "range", "kc", "", "SELECT COUNT(*) FROM ord WHERE cid < 500"}},
		// A full scan reads the table.
		"SELECT * FROM cust": {{"cust", "ALL", "", "", "SELECT COUNT(*) FROM cust"}},
		// A join: the inner side looked up by its primary key per outer
		// row.
		"SELECT c.name, o.amt FROM ord o JOIN cust c ON c.id = o.cid WHERE o.oid < 100": {
			{"o", "range", "PRIMARY", "", "SELECT COUNT(*) FROM ord WHERE oid < 100"},
			{"c", "eq_ref", "PRIMARY", "d.o.cid", "SELECT 1"},
		},
	} {
		got := rows("EXPLAIN " + q)
		if len(got) != len(w) {
			t.Errorf("%s: %d rows, want %d: %v", q, len(got), len(w), got)
			continue
		}
		for i, r := range got {
			if len(r) != 12 {
				t.Fatalf("%s: row %v", q, r)
			}
			str := func(v any) string {
				if v == nil {
					return ""
				}
				return fmt.Sprint(v)
			}
			if str(r[2]) != w[i].table || str(r[4]) != w[i].typ || str(r[6]) != w[i].key || str(r[8]) != w[i].ref {
				t.Errorf("%s: row %d table/type/key/ref %q/%q/%q/%q, want %q/%q/%q/%q", q, i, r[2], r[4], r[6], r[8], w[i].table, w[i].typ, w[i].key, w[i].ref)
			}
			est, ok := r[9].(uint64)
			if !ok {
				t.Errorf("%s: rows %v (%T), want a uint64", q, r[9], r[9])
				continue
			}
			if _, ok := r[10].(float64); !ok {
				t.Errorf("%s: filtered %v (%T), want a float64", q, r[10], r[10])
			}
			truth := count(t, rows, w[i].truth)
			if !within(float64(est), truth, 2) {
				t.Errorf("%s: %s estimated %d rows, matches %v", q, w[i].table, est, truth)
			}
		}
	}
	// A full scan's estimate is the table's rows.
	if r := rows("EXPLAIN SELECT * FROM ord"); r[0][9] != uint64(8000) {
		t.Errorf("full scan of ord: rows %v, want 8000", r[0][9])
	}
	// A filter on a scan: filtered is the sample's selectivity (amt = 7
	// keeps 2%).
	r := rows("EXPLAIN SELECT * FROM ord WHERE amt = 7")
	if f, _ := r[0][10].(float64); r[0][4] != "ALL" || !within(f, 2, 2) || r[0][11] != "Using where" {
		t.Errorf("filter on a scan: %v, want ALL with filtered about 2 and Using where", r)
	}
	// A subquery is numbered.
	r = rows("EXPLAIN SELECT name, (SELECT MAX(amt) FROM ord WHERE ord.cid = cust.id) FROM cust WHERE region = 1")
	if len(r) != 2 || r[0][0] != uint64(1) || r[0][1] != "PRIMARY" || r[1][0] != uint64(2) || !strings.Contains(fmt.Sprint(r[1][1]), "SUBQUERY") {
		t.Errorf("subquery: %v", r)
	}
	// A statement that fails explains as its error.
	if _, err := env.query("EXPLAIN SELECT nosuch FROM cust"); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("EXPLAIN of a bad column: %v, want the SELECT's error", err)
	}
}

// TestTreeExplainEstimates: every operator line of EXPLAIN FORMAT=TREE
// carries its estimated rows (GMS's tree otherwise kept), the join's
// within a factor of 2 of its result; EXPLAIN ANALYZE shows the estimate
// before the actual figures.
func TestTreeExplainEstimates(t *testing.T) {
	_, rows := explainEnv(t)
	q := "SELECT c.name, o.amt FROM ord o JOIN cust c ON c.id = o.cid WHERE o.oid < 100 AND c.region = 3"
	var lines []string
	for _, r := range rows("EXPLAIN FORMAT=TREE " + q) {
		lines = append(lines, fmt.Sprint(r[0]))
	}
	plan := strings.Join(lines, "\n")
	if !strings.Contains(plan, "Join") || !strings.Contains(plan, "index: [") {
		t.Fatalf("plan:\n%s\nwant a join through an index", plan)
	}
	for _, l := range lines {
		// An operator's line is its name; its properties are
		// "name: value" lines and parenthesised conditions.
		body := strings.TrimLeft(l, " │├└─")
		f := strings.Fields(body)
		op := !strings.HasPrefix(body, "(") && !strings.HasSuffix(f[0], ":")
		if op != strings.Contains(l, "  (rows=") {
			t.Errorf("line %q: operator %v, with an estimate %v", l, op, !op)
		}
	}
	truth := count(t, rows, "SELECT COUNT(*) FROM ("+q+") x")
	est, err := strconv.ParseFloat(strings.TrimSuffix(strings.SplitN(lines[0], "(rows=", 2)[1], ")"), 64)
	if err != nil || !within(est, truth, 2) {
		t.Errorf("join estimated %q, returns %v:\n%s", lines[0], truth, plan)
	}
	for _, r := range rows("EXPLAIN ANALYZE " + q) {
		l := fmt.Sprint(r[0])
		if !strings.Contains(l, "(rows=") || !strings.Contains(l, ") (actual time=") {
			t.Errorf("EXPLAIN ANALYZE line %q, want (rows=N) (actual time=...)", l)
		}
	}
}

// TestExplainFormats: FORMAT=TRADITIONAL is the traditional table, and
// FORMAT=JSON MySQL's document built from the same rows: a join's tables
// in order under nested_loop with the traditional table's access types,
// keys and estimates; a derived table's block under its table; UNION's
// selects under union_result; a subquery under attached_subqueries.
func TestExplainFormats(t *testing.T) {
	env, rows := explainEnv(t)
	if r := rows("EXPLAIN FORMAT=TRADITIONAL SELECT * FROM cust WHERE id = 3"); len(r) != 1 || len(r[0]) != 12 || r[0][4] != "const" {
		t.Errorf("FORMAT=TRADITIONAL: %v", r)
	}
	doc := func(q string) map[string]any {
		t.Helper()
		r := rows(q)
		if len(r) != 1 || len(r[0]) != 1 {
			t.Fatalf("%s: %v, want one row of one column", q, r)
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(r[0][0].(string)), &out); err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", q, err, r[0][0])
		}
		return out["query_block"].(map[string]any)
	}
	q := "SELECT * FROM cust JOIN ord ON ord.cid = cust.id WHERE cust.region = 3"
	trad := rows("EXPLAIN " + q)
	qb := doc("EXPLAIN FORMAT=JSON " + q)
	loop, _ := qb["nested_loop"].([]any)
	if qb["select_id"] != 1.0 || len(loop) != len(trad) {
		t.Fatalf("join: %v (traditional: %v)", qb, trad)
	}
	for i, x := range loop {
		tb := x.(map[string]any)["table"].(map[string]any)
		if tb["table_name"] != trad[i][2] || tb["access_type"] != trad[i][4] || tb["key"] != trad[i][6] || fmt.Sprint(tb["rows_examined_per_scan"]) != fmt.Sprint(trad[i][9]) {
			t.Errorf("join table %d: %v, traditional row %v", i, tb, trad[i])
		}
	}
	if tb := doc("/* c */ describe format = json SELECT * FROM cust WHERE id = 3")["table"].(map[string]any); tb["access_type"] != "const" || tb["key"] != "PRIMARY" {
		t.Errorf("point lookup: %v", tb)
	}
	if u := doc("EXPLAIN FORMAT=JSON SELECT id FROM cust UNION SELECT oid FROM ord")["union_result"].(map[string]any); len(u["query_specifications"].([]any)) != 2 || u["table_name"] != "<union1,2>" {
		t.Errorf("union: %v", u)
	}
	if tb := doc("EXPLAIN FORMAT=JSON SELECT * FROM (SELECT region, COUNT(*) n FROM cust GROUP BY region) g WHERE n > 1")["table"].(map[string]any); tb["materialized_from_subquery"] == nil {
		t.Errorf("derived table: %v", tb)
	}
	if subs, _ := doc("EXPLAIN FORMAT=JSON SELECT id, (SELECT COUNT(*) FROM ord WHERE ord.cid = cust.id) FROM cust")["attached_subqueries"].([]any); len(subs) != 1 {
		t.Errorf("subquery: %v", subs)
	}
	if _, err := env.query("EXPLAIN FORMAT=JSON SELEC 1"); err == nil || strings.Contains(err.Error(), "EXPLAIN FORMAT=JSON") {
		t.Errorf("a syntax error after FORMAT=JSON: %v, want a syntax error", err)
	}
}
