package functions

import (
	"sort"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression/function/json"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// JSON_EXTRACT (and the -> and ->> operators) over documents of mixed
// shapes. A path that matches nothing in a document is SQL NULL in
// MySQL: doc->'$.b[2].c' over a row holding an array, doc->'$[3]' over
// a shorter array. GMS's path library fails instead ("failed to extract
// from expression ...; object is not Slice"), and the whole statement
// failed with 1105 as soon as one row had another shape. MySQL also
// reads [0] of a value that is not an array as the value itself
// ('{"a": 1}'->'$[0]' is {"a": 1}), and several paths give an array of
// what they match (GMS's panicked when one matched nothing). jsonExtract
// walks paths of member and array steps (n, last, last-n, .*, [*], and
// ** for any depth: '$**.city', which GMS's answered NULL for every
// document) itself; paths with ranges go to GMS's.

// JSONExtractRuleID names JSONExtractRule.
const JSONExtractRuleID analyzer.RuleId = 1801

// JSONExtractRule puts jsonExtract in place of GMS's JSON_EXTRACT, which
// the -> operators build without the function registry.
func JSONExtractRule(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if x, ok := e.(*json.JSONExtract); ok {
			return &jsonExtract{x}, transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
}

type jsonExtract struct{ *json.JSONExtract }

func (j *jsonExtract) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	x, err := j.JSONExtract.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if je, ok := x.(*json.JSONExtract); ok {
		return &jsonExtract{je}, nil
	}
	return x, nil
}

func (j *jsonExtract) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	if out, ok, err := j.mysqlPaths(ctx, row); ok || err != nil {
		return out, err
	}
	return j.JSONExtract.Eval(ctx, row)
}

// mysqlPaths answers JSON_EXTRACT by walking its paths; ok false when a
// path has steps it does not walk.
func (j *jsonExtract) mysqlPaths(ctx *sql.Context, row sql.Row) (any, bool, error) {
	if t := j.JSON.Type(); !types.IsJSON(t) && !types.IsText(t) {
		return nil, false, nil // GMS's 3146 for a number or other type
	}
	dv, err := j.JSON.Eval(ctx, row)
	if err != nil || dv == nil {
		return nil, err == nil, err
	}
	cv, _, err := types.JSON.Convert(ctx, dv)
	if err != nil {
		return nil, false, nil
	}
	w, ok := cv.(sql.JSONWrapper)
	if !ok {
		return nil, false, nil
	}
	doc, err := w.ToInterface()
	if err != nil {
		return nil, false, nil
	}
	var found []any
	wild := false
	for _, p := range j.Paths {
		pv, err := p.Eval(ctx, row)
		if err != nil || pv == nil {
			return nil, err == nil, err
		}
		ps, ok := pv.(string)
		if !ok {
			return nil, false, nil
		}
		steps, ok := parseJSONPath(ps)
		if !ok {
			return nil, false, nil
		}
		for _, st := range steps {
			wild = wild || st.wild
		}
		found = walkJSONPath(doc, steps, found)
	}
	switch {
	case len(found) == 0:
		return nil, true, nil
	case len(j.Paths) == 1 && !wild:
		return types.JSONDocument{Val: found[0]}, true, nil
	}
	return types.JSONDocument{Val: found}, true, nil
}

// jsonStep is a member (key) or an array cell (index from the start,
// or from the end when fromEnd: last-n).
type jsonStep struct {
	member  bool
	key     string
	index   int
	fromEnd bool
	wild    bool // .* or [*]
	descend bool // **: the rest of the path at any depth
}

// parseJSONPath reads $ followed by .key, ."key" and [n], [last],
// [last-n] steps; false for anything else (wildcards, ranges).
func parseJSONPath(p string) ([]jsonStep, bool) {
	p = strings.TrimSpace(p)
	if !strings.HasPrefix(p, "$") {
		return nil, false
	}
	p = p[1:]
	var steps []jsonStep
	for p != "" {
		switch p[0] {
		case ' ':
			p = p[1:]
		case '*':
			if !strings.HasPrefix(p, "**") {
				return nil, false
			}
			steps = append(steps, jsonStep{descend: true, wild: true})
			p = p[2:]
		case '.':
			p = strings.TrimLeft(p[1:], " ")
			if strings.HasPrefix(p, `"`) {
				end := strings.IndexByte(p[1:], '"')
				if end < 0 {
					return nil, false
				}
				steps = append(steps, jsonStep{member: true, key: p[1 : 1+end]})
				p = p[end+2:]
				continue
			}
			if strings.HasPrefix(p, "*") && !strings.HasPrefix(p, "**") {
				steps = append(steps, jsonStep{member: true, wild: true})
				p = p[1:]
				continue
			}
			end := strings.IndexAny(p, ".[ *")
			if end < 0 {
				end = len(p)
			}
			key := p[:end]
			if key == "" || strings.ContainsAny(key, `*"`) {
				return nil, false
			}
			steps = append(steps, jsonStep{member: true, key: key})
			p = p[end:]
		case '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return nil, false
			}
			in := strings.TrimSpace(p[1:end])
			p = p[end+1:]
			st := jsonStep{}
			if in == "*" {
				st.wild = true
			} else if rest, ok := strings.CutPrefix(in, "last"); ok {
				st.fromEnd = true
				rest = strings.TrimSpace(rest)
				if rest != "" {
					n, ok := strings.CutPrefix(rest, "-")
					if !ok {
						return nil, false
					}
					v, err := strconv.Atoi(strings.TrimSpace(n))
					if err != nil || v < 0 {
						return nil, false
					}
					st.index = v
				}
			} else {
				v, err := strconv.Atoi(in)
				if err != nil || v < 0 {
					return nil, false
				}
				st.index = v
			}
			steps = append(steps, st)
		default:
			return nil, false
		}
	}
	if len(steps) > 0 && steps[len(steps)-1].descend {
		return nil, false // MySQL: a path may not end in ** (GMS's error)
	}
	return steps, true
}

// walkJSONPath appends to out the values steps reach from v.
func walkJSONPath(v any, steps []jsonStep, out []any) []any {
	if len(steps) == 0 {
		return append(out, v)
	}
	st, rest := steps[0], steps[1:]
	if st.descend {
		// The rest here, then at every depth below, in document order.
		out = walkJSONPath(v, rest, out)
		switch x := v.(type) {
		case map[string]any:
			for _, k := range jsonKeyOrder(x) {
				out = walkJSONPath(x[k], steps, out)
			}
		case []any:
			for _, c := range x {
				out = walkJSONPath(c, steps, out)
			}
		}
		return out
	}
	if st.member {
		m, ok := v.(map[string]any)
		if !ok {
			return out
		}
		if !st.wild {
			if c, ok := m[st.key]; ok {
				out = walkJSONPath(c, rest, out)
			}
			return out
		}
		for _, k := range jsonKeyOrder(m) {
			out = walkJSONPath(m[k], rest, out)
		}
		return out
	}
	arr, isArr := v.([]any)
	if st.wild {
		if isArr {
			for _, c := range arr {
				out = walkJSONPath(c, rest, out)
			}
		}
		return out
	}
	if !isArr {
		// A value that is not an array is an array of itself.
		arr = []any{v}
	}
	i := st.index
	if st.fromEnd {
		i = len(arr) - 1 - st.index
	}
	if i < 0 || i >= len(arr) {
		return out
	}
	return walkJSONPath(arr[i], rest, out)
}

// jsonKeyOrder is m's keys in MySQL's order: shorter first, then by bytes.
func jsonKeyOrder(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if len(keys[a]) != len(keys[b]) {
			return len(keys[a]) < len(keys[b])
		}
		return keys[a] < keys[b]
	})
	return keys
}
