package explain

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
)

// EXPLAIN FORMAT=JSON, MySQL 8's shape, built from the rows of
// traditional EXPLAIN (traditional.go): a "query_block" per SELECT
// (select_id), its one table as "table" or its tables in join order as
// "nested_loop"; a derived table's query block under its table's
// "materialized_from_subquery"; UNION's selects under "union_result"'s
// "query_specifications"; the subqueries (SUBQUERY, DEPENDENT SUBQUERY)
// under the outer block's "attached_subqueries". Each table carries
// table_name, access_type, possible_keys, key, key_length, ref,
// rows_examined_per_scan, rows_produced_per_join (the rows its filter
// keeps), filtered, and the flags of traditional EXPLAIN's Extra
// (using_index, using_where as attached_condition's presence is not
// known: "using_where": true, using_join_buffer, using_temporary_table,
// using_filesort). Not given: cost_info (Petrel's planner has no cost
// figures of MySQL's kind) and attached_condition's text. The answer is
// one row of one column, as MySQL's.

// explainJSON is the JSON document of plan n's EXPLAIN.
func explainJSON(ctx *sql.Context, n sql.Node) (string, error) {
	rows := explainTable(ctx, n)
	byID := map[uint64][]*tradRow{}
	var order []uint64
	var unionRow *tradRow
	for _, r := range rows {
		id, ok := r.id.(uint64)
		if !ok {
			unionRow = r // UNION RESULT
			continue
		}
		if _, seen := byID[id]; !seen {
			order = append(order, id)
		}
		byID[id] = append(byID[id], r)
	}
	if len(order) == 0 {
		return "", fmt.Errorf("sqlengine: EXPLAIN FORMAT=JSON: no select")
	}
	done := map[uint64]bool{}
	var block func(id uint64) obj
	block = func(id uint64) obj {
		done[id] = true
		qb := obj{{"select_id", id}}
		var tables []obj
		for _, r := range byID[id] {
			if r.table == nil {
				if len(r.extra) > 0 {
					qb.set("message", strings.Join(r.extra, "; "))
				}
				continue
			}
			t := jsonTable(r)
			if name, _ := r.table.(string); strings.HasPrefix(name, "<derived") {
				if did, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(name, "<derived"), ">"), 10, 64); err == nil && byID[did] != nil {
					t.set("materialized_from_subquery", obj{{"using_temporary_table", true}, {"dependent", false}, {"cacheable", true}, {"query_block", block(did)}})
				}
			}
			tables = append(tables, t)
		}
		switch len(tables) {
		case 0:
		case 1:
			qb.set("table", tables[0])
		default:
			var loop []obj
			for _, t := range tables {
				loop = append(loop, obj{{"table", t}})
			}
			qb.set("nested_loop", loop)
		}
		return qb
	}
	var top obj
	if unionRow != nil {
		var specs []obj
		for _, id := range order {
			if sel := byID[id][0].selType; id == order[0] || sel == "UNION" || sel == "DEPENDENT UNION" {
				specs = append(specs, obj{{"dependent", strings.HasPrefix(sel, "DEPENDENT")}, {"cacheable", true}, {"query_block", block(id)}})
			}
		}
		top = obj{{"union_result", obj{{"table_name", unionRow.table}, {"access_type", "ALL"}, {"using_temporary_table", true}, {"query_specifications", specs}}}}
	} else {
		top = block(order[0])
	}
	var subs []obj
	for _, id := range order {
		if done[id] {
			continue
		}
		sel := byID[id][0].selType
		subs = append(subs, obj{{"dependent", strings.HasPrefix(sel, "DEPENDENT")}, {"cacheable", !strings.HasPrefix(sel, "DEPENDENT")}, {"query_block", block(id)}})
	}
	if len(subs) > 0 {
		top.set("attached_subqueries", subs)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(obj{{"query_block", top}}); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// obj is a JSON object that keeps its members in order (MySQL's order:
// select_id, table_name first).
type obj []member

type member struct {
	k string
	v any
}

// set sets member k (in place when present, else last).
func (o *obj) set(k string, v any) {
	for i := range *o {
		if (*o)[i].k == k {
			(*o)[i].v = v
			return
		}
	}
	*o = append(*o, member{k, v})
}

// MarshalJSON implements json.Marshaler.
func (o obj) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.k)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		var vb strings.Builder
		enc := json.NewEncoder(&vb)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(m.v); err != nil {
			return nil, err
		}
		b.WriteString(strings.TrimSuffix(vb.String(), "\n"))
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// jsonTable is one table of a query block.
func jsonTable(r *tradRow) obj {
	t := obj{{"table_name", r.table}}
	if r.typ != nil {
		t.set("access_type", r.typ)
	}
	if s, ok := r.possible.(string); ok && s != "" {
		t.set("possible_keys", strings.Split(s, ","))
	}
	if r.key != nil {
		t.set("key", r.key)
	}
	if r.keyLen != nil {
		t.set("key_length", fmt.Sprint(r.keyLen))
	}
	if s, ok := r.ref.(string); ok && s != "" {
		t.set("ref", strings.Split(s, ","))
	}
	filtered := 100.0
	if f, ok := r.filtered.(float64); ok {
		filtered = f
	}
	if rows, ok := toUint(r.rows); ok {
		t.set("rows_examined_per_scan", rows)
		t.set("rows_produced_per_join", uint64(float64(rows)*filtered/100+0.5))
	}
	t.set("filtered", fmt.Sprintf("%.2f", filtered))
	for _, e := range r.extra {
		switch {
		case e == "Using where":
			t.set("using_where", true)
		case e == "Using index":
			t.set("using_index", true)
		case e == "Using temporary":
			t.set("using_temporary_table", true)
		case e == "Using filesort":
			t.set("using_filesort", true)
		case joinBuffer.MatchString(e):
			t.set("using_join_buffer", joinBuffer.FindStringSubmatch(e)[1])
		}
	}
	return t
}

var joinBuffer = regexp.MustCompile(`^Using join buffer \((.*)\)$`)

func toUint(v any) (uint64, bool) {
	switch x := v.(type) {
	case uint64:
		return x, true
	case int64:
		return uint64(max(x, 0)), true
	case int:
		return uint64(max(x, 0)), true
	case float64:
		return uint64(max(x, 0)), true
	}
	return 0, false
}
