package planstats

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"petrel/sqlengine/rewrite"
)

// Selectivity of conditions on columns no index describes, from a sample
// of the table's rows. Petrel's statistics are its indexes' (stats.go):
// a filter on another column left its table looking whole to the
// planner, and TPC-H Q2 (part filtered by p_size = 30 AND p_type LIKE
// '%STEEL', neither indexed, 64 of 20,000 rows) was planned as a scan of
// all 80,000 partsupp rows joined to part, 12x MariaDB's time. InnoDB's
// optimizer applies fixed factors there (0.1 for an equality); tried
// here they misjudged lineitem's l_returnflag = 'R' (a quarter of the
// rows) and slowed Q7 and Q10 twofold. The conditions are evaluated
// instead on about a thousand rows read from 32 points spread over the
// primary key (its histogram's bucket bounds; the whole table when it is
// small), taken once per analysis and kept with it, and the fraction
// that passes is the estimate (cached per condition text).

const (
	sampleSpots   = 32   // points of the primary key read from
	samplePerSpot = 32   // rows read at each
	sampleWhole   = 2048 // tables up to this many rows are read whole
	// sampleMinRows: smaller tables keep the estimates they had (their
	// plans cost little either way). GMS's UPDATE ... JOIN counts and
	// updates a target row once per joined row when the target is the
	// join's inner side, and a four-row table's filter estimate put it
	// there in GMS's own engine tests.
	sampleMinRows = 1000
)

// filterSample holds a table's sample and the selectivities found on it.
type filterSample struct {
	once sync.Once
	rows []sql.Row
	mu   sync.Mutex
	sel  map[string]float64
}

// sampleRows returns tb's sample, reading it on first use; nil when tb
// has no statistics yet (its plans keep the estimates they had).
func (p *Provider) sampleRows(tb Table) *filterSample {
	ts := p.current(tb)
	if ts == nil {
		return nil
	}
	fs := &ts.sample
	fs.once.Do(func() { fs.rows = p.readSample(tb, ts) })
	if len(fs.rows) == 0 {
		return nil
	}
	return fs
}

// readSample reads the sample: the first rows after each of up to
// sampleSpots bucket bounds of the primary key's first column.
func (p *Provider) readSample(tb Table, ts *tableStats) []sql.Row {
	st := ts.def.Load()
	if st == nil {
		return nil
	}
	ctx := sql.NewEmptyContext()
	txn := p.store.Begin()
	defer txn.Rollback()
	read := func(lo []byte, n int) []sql.Row {
		it, err := txn.Scan(ctx, st, 0, lo, nil, false)
		if err != nil {
			return nil
		}
		defer it.Close()
		it.Uncounted()
		var out []sql.Row
		for len(out) < n {
			row, err := it.Next()
			if err != nil || row == nil {
				break
			}
			out = append(out, row)
		}
		return out
	}
	if ts.rows <= sampleWhole {
		return read(nil, sampleWhole)
	}
	is := ts.idx["primary"]
	var pkType sql.Type
	for _, c := range st.Schema {
		if c.PrimaryKey {
			pkType = c.Type
			break
		}
	}
	if is == nil || pkType == nil {
		return nil
	}
	hist := is.stat.Histogram()
	if len(hist) == 0 {
		return nil
	}
	var out []sql.Row
	step := max(1, len(hist)/sampleSpots)
	for i := 0; i < len(hist); i += step {
		ub := hist[i].UpperBound()
		if len(ub) == 0 || ub[0] == nil {
			continue
		}
		lo, err := st.AppendKey(st.IndexKeyPrefix(0), pkType, ub[0])
		if err != nil {
			continue
		}
		out = append(out, read(lo, samplePerSpot)...)
	}
	return out
}

// SampledSelectivity estimates the fraction of tb's rows (named name in
// the plan) the conditions among conds on its columns alone keep, not
// counting those on the columns of used; false when none is such or
// there is no sample.
func (p *Provider) SampledSelectivity(tb Table, name string, conds []sql.Expression, used map[int]bool) (float64, bool) {
	var mine []sql.Expression
	for _, c := range conds {
		if rc, ok := RebaseToTable(tb, name, c, used); ok {
			mine = append(mine, rc)
		}
	}
	if len(mine) == 0 {
		return 0, false
	}
	if tb.ApproxRows() < sampleMinRows {
		return 0, false
	}
	fs := p.sampleRows(tb)
	if fs == nil {
		return 0, false
	}
	texts := make([]string, len(mine))
	for i, c := range mine {
		texts[i] = c.String()
	}
	sort.Strings(texts)
	key := strings.Join(texts, " AND ")
	fs.mu.Lock()
	sel, ok := fs.sel[key]
	fs.mu.Unlock()
	if ok {
		return sel, true
	}
	// A context of its own: warnings of the evaluation are not the
	// statement's.
	ectx := sql.NewContext(context.Background())
	kept := 0
	for _, row := range fs.rows {
		pass := true
		for _, c := range mine {
			v, err := c.Eval(ectx, row)
			if err != nil || v == nil {
				pass = false
				break
			}
			if ok, err := sql.ConvertToBool(ectx, v); err != nil || !ok {
				pass = false
				break
			}
		}
		if pass {
			kept++
		}
	}
	sel = max(float64(kept), 0.5) / float64(len(fs.rows))
	fs.mu.Lock()
	if fs.sel == nil {
		fs.sel = map[string]float64{}
	}
	if len(fs.sel) < 1024 {
		fs.sel[key] = sel
	}
	fs.mu.Unlock()
	return sel, true
}

// RebaseToTable returns c over tb's own rows when it reads only tb's
// columns (named name), at least one not in used, and no subquery,
// variable or non-deterministic call.
func RebaseToTable(tb Table, name string, c sql.Expression, used map[int]bool) (sql.Expression, bool) {
	ok, fresh := true, false
	transform.InspectExpr(c, func(x sql.Expression) bool {
		switch x := x.(type) {
		case *expression.GetField:
			o := tb.Storage().Schema.IndexOfColName(x.Name())
			if !strings.EqualFold(x.Table(), name) || o < 0 {
				ok = false
			} else if !used[o] {
				fresh = true
			}
		case *plan.Subquery, *expression.BindVar, *expression.UserVar, *expression.SystemVar, *expression.ProcedureParam:
			ok = false
		default:
			if rewrite.Volatile(x) {
				ok = false
			}
		}
		return !ok
	})
	if !ok || !fresh {
		return nil, false
	}
	out, _, err := transform.Expr(c, func(x sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if gf, ok := x.(*expression.GetField); ok {
			return gf.WithIndex(tb.Storage().Schema.IndexOfColName(gf.Name())), transform.NewTree, nil
		}
		return x, transform.SameTree, nil
	})
	return out, err == nil
}
