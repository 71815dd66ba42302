package sqlengine

import (
	"math"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/memo"
)

// Cost factors, GMS's (sql/memo/coster.go, after PostgreSQL's).
const (
	costSeqIO  = 1.0
	costRandIO = 1.3
	costCPU    = 0.01
)

// statsCoster is GMS's coster with lookup joins (index nested loops)
// priced from index statistics, as MySQL prices ref access: each row of
// the outer side costs one random seek plus the rows one key matches in
// the inner index (rows / the distinct count of the key's column
// prefix). GMS prices a lookup join from its estimate of the whole join's
// output, which for a selective outer side joined on a non-unique index
// comes out far above a merge join that reads both indexes whole. Other
// operators, and lookups into indexes without statistics, keep GMS's
// costs.
type statsCoster struct {
	base  memo.Coster
	stats *statsProvider
}

var _ memo.Coster = statsCoster{}

// EstimateCost implements memo.Coster.
func (c statsCoster) EstimateCost(ctx *sql.Context, n memo.RelExpr, s sql.StatsProvider) (float64, error) {
	if lj, ok := n.(*memo.LookupJoin); ok && lj.Lookup != nil {
		if perKey, ok := c.rowsPerKey(lj.Lookup); ok {
			outer := math.Max(1, float64(lj.Left.RelProps.GetStats().RowCount()))
			return outer*costSeqIO + outer*(costRandIO+perKey*(costSeqIO+costCPU)), nil
		}
	}
	return c.base.EstimateCost(ctx, n, s)
}

// rowsPerKey is the rows one lookup into scan's index is expected to
// return, from the index's statistics.
func (c statsCoster) rowsPerKey(scan *memo.IndexScan) (float64, bool) {
	if scan.Index == nil || scan.Table == nil {
		return 0, false
	}
	ix, ok := scan.Index.SqlIdx().(*Index)
	if !ok {
		return 0, false
	}
	keys := len(scan.Table.Expressions())
	if keys == 0 || keys > len(ix.ords) {
		return 0, false
	}
	if ix.uniq && keys == len(ix.ords) {
		return 1, true
	}
	rows, distinct, ok := c.stats.prefixCounts(ix.t.db.name, ix.t.Name(), ix.name, keys)
	if !ok || distinct == 0 {
		return 0, false
	}
	return math.Max(1, float64(rows)/float64(distinct)), true
}
