package histogram

import (
	"math"
	"sort"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/stats"
)

// The histogram builder: a deterministic core that turns a sample of one
// index's keys into GMS's statistic shape (equi-depth buckets with
// distinct, null, bound and most-common-value counts), scaled to the
// table's row count when the keys are a sample.

const (
	// MaxBuckets is the most buckets an index's histogram has.
	MaxBuckets = 64
	// MaxSample is the most keys an analysis keeps per index; larger
	// tables are sampled (reservoir), as InnoDB samples pages.
	MaxSample = 50000
	// statsBucketMcvs is the most common values kept per bucket.
	statsBucketMcvs = 3
)

// KeyStats is one index's analysis: its histogram and the distinct count
// of each column prefix (MySQL's CARDINALITY for each Seq_in_index).
type KeyStats struct {
	Rows, Distinct, Nulls uint64
	Prefix                []uint64 // distinct counts of the first 1..n columns
	Lower                 sql.Row  // the smallest key
	Buckets               []sql.HistogramBucket
}

// compareKeys orders index keys column by column, NULL first (InnoDB's
// index order).
func compareKeys(ctx *sql.Context, types []sql.Type, a, b sql.Row, n int) int {
	for i := 0; i < n; i++ {
		switch {
		case a[i] == nil && b[i] == nil:
			continue
		case a[i] == nil:
			return -1
		case b[i] == nil:
			return 1
		}
		c, err := types[i].Compare(ctx, a[i], b[i])
		if err != nil || c == 0 {
			continue
		}
		return c
	}
	return 0
}

// Build sorts keys (a sample of total rows' keys; every key when
// len(keys) == total) and builds the index's statistics. unique says the
// index allows each non-NULL key once.
func Build(ctx *sql.Context, types []sql.Type, keys []sql.Row, total uint64, unique bool) KeyStats {
	ncols := len(types)
	sort.SliceStable(keys, func(i, j int) bool { return compareKeys(ctx, types, keys[i], keys[j], ncols) < 0 })
	n := len(keys)
	ks := KeyStats{Rows: total, Prefix: make([]uint64, ncols)}
	if n == 0 {
		return ks
	}
	ks.Lower = keys[0]
	scale := float64(total) / float64(n)
	// gee is the GEE distinct-count estimator (Charikar et al.): the
	// sample's values seen more than once are all there; each seen once
	// stands for sqrt(N/n) values of the table.
	gee := func(distinct, singles int) uint64 {
		if scale <= 1 {
			return uint64(distinct)
		}
		return uint64(math.Round(float64(distinct) + (math.Sqrt(scale)-1)*float64(singles)))
	}
	scaled := func(c int) uint64 { return uint64(math.Max(1, math.Round(float64(c)*scale))) }

	// Distinct counts per prefix.
	for p := 1; p <= ncols; p++ {
		distinct, singles, run := 0, 0, 0
		for i := 0; i < n; i++ {
			if i == 0 || compareKeys(ctx, types, keys[i-1], keys[i], p) != 0 {
				if run == 1 {
					singles++
				}
				distinct, run = distinct+1, 0
			}
			run++
		}
		if run == 1 {
			singles++
		}
		ks.Prefix[p-1] = gee(distinct, singles)
	}

	// Runs of equal full keys, grouped into equi-depth buckets that never
	// split a run.
	target := (n + MaxBuckets - 1) / MaxBuckets
	type run struct {
		key   sql.Row
		count int
	}
	var (
		runs  []run
		nulls int
	)
	flush := func() {
		if len(runs) == 0 {
			return
		}
		rows, singles, bucketNulls := 0, 0, 0
		for _, r := range runs {
			rows += r.count
			if r.count == 1 {
				singles++
			}
			if r.key[0] == nil {
				bucketNulls += r.count
			}
		}
		last := runs[len(runs)-1]
		// Most common values: the largest runs above the bucket's mean.
		byCount := append([]run(nil), runs...)
		sort.SliceStable(byCount, func(i, j int) bool { return byCount[i].count > byCount[j].count })
		var mcvs []sql.Row
		var mcvCounts []uint64
		mean := float64(rows) / float64(len(runs))
		for _, r := range byCount {
			if len(mcvs) == statsBucketMcvs || float64(r.count) <= mean {
				break
			}
			mcvs = append(mcvs, r.key)
			mcvCounts = append(mcvCounts, scaled(r.count))
		}
		distinct := gee(len(runs), singles)
		if unique {
			distinct = scaled(rows - bucketNulls)
		}
		var nullCount uint64
		if bucketNulls > 0 {
			nullCount = scaled(bucketNulls)
		}
		ks.Buckets = append(ks.Buckets, stats.NewHistogramBucket(scaled(rows), max(distinct, 1), nullCount, scaled(last.count), last.key, mcvCounts, mcvs))
		runs = runs[:0]
	}
	inBucket := 0
	for i := 0; i < n; {
		j := i + 1
		for j < n && compareKeys(ctx, types, keys[i], keys[j], ncols) == 0 {
			j++
		}
		runs = append(runs, run{key: keys[i], count: j - i})
		if keys[i][0] == nil {
			nulls += j - i
		}
		inBucket += j - i
		if inBucket >= target {
			flush()
			inBucket = 0
		}
		i = j
	}
	flush()
	for _, b := range ks.Buckets {
		ks.Distinct += b.DistinctCount()
	}
	if nulls > 0 {
		ks.Nulls = scaled(nulls)
	}
	if unique {
		ks.Distinct = total - min(ks.Nulls, total)
		ks.Prefix[ncols-1] = ks.Distinct
	}
	return ks
}
