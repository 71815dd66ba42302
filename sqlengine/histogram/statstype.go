package histogram

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/stats"
)

// indexStatistic is GMS's statistic with one correction that keeps it
// through the planner's copies (every With* returns an indexStatistic):
// GMS narrows a histogram to a range by keeping the buckets whose upper
// bounds lie in the range, so a range inside one bucket (a.id BETWEEN
// 5000 AND 5009 against buckets 157 ids wide) leaves no bucket, and GMS
// then falls back to half the table. Such a range holds at most one
// bucket's rows; that is the estimate given instead.
type indexStatistic struct {
	*stats.Statistic
	// bucketRows and bucketDistinct are the mean rows and distinct values
	// of a bucket of the full histogram.
	bucketRows, bucketDistinct uint64
}

var _ sql.Statistic = (*indexStatistic)(nil)

func NewStatistic(s *stats.Statistic) *indexStatistic {
	is := &indexStatistic{Statistic: s}
	if n := uint64(len(s.Hist)); n > 0 {
		is.bucketRows = max(1, s.RowCnt/n)
		is.bucketDistinct = max(1, s.DistinctCnt/n)
	}
	return is
}

func (s *indexStatistic) wrap(st sql.Statistic) sql.Statistic {
	if inner, ok := st.(*stats.Statistic); ok {
		return &indexStatistic{Statistic: inner, bucketRows: s.bucketRows, bucketDistinct: s.bucketDistinct}
	}
	return st
}

// WithHistogram implements sql.MutableStatistic.
func (s *indexStatistic) WithHistogram(h sql.Histogram) (sql.Statistic, error) {
	if len(h) == 0 && len(s.Hist) > 0 {
		ret := *s.Statistic
		ret.Hist = nil
		ret.RowCnt, ret.DistinctCnt, ret.NullCnt = s.bucketRows, s.bucketDistinct, 0
		return s.wrap(&ret), nil
	}
	st, err := s.Statistic.WithHistogram(h)
	if err != nil {
		return nil, err
	}
	return s.wrap(st), nil
}

// WithColSet implements sql.MutableStatistic.
func (s *indexStatistic) WithColSet(c sql.ColSet) sql.Statistic {
	return s.wrap(s.Statistic.WithColSet(c))
}

// WithFuncDeps implements sql.MutableStatistic.
func (s *indexStatistic) WithFuncDeps(f *sql.FuncDepSet) sql.Statistic {
	return s.wrap(s.Statistic.WithFuncDeps(f))
}

// WithDistinctCount implements sql.MutableStatistic.
func (s *indexStatistic) WithDistinctCount(n uint64) sql.Statistic {
	return s.wrap(s.Statistic.WithDistinctCount(n))
}

// WithRowCount implements sql.MutableStatistic.
func (s *indexStatistic) WithRowCount(n uint64) sql.Statistic {
	return s.wrap(s.Statistic.WithRowCount(n))
}

// WithNullCount implements sql.MutableStatistic.
func (s *indexStatistic) WithNullCount(n uint64) sql.Statistic {
	return s.wrap(s.Statistic.WithNullCount(n))
}

// WithAvgSize implements sql.MutableStatistic.
func (s *indexStatistic) WithAvgSize(n uint64) sql.Statistic {
	return s.wrap(s.Statistic.WithAvgSize(n))
}

// WithLowerBound implements sql.MutableStatistic.
func (s *indexStatistic) WithLowerBound(r sql.Row) sql.Statistic {
	return s.wrap(s.Statistic.WithLowerBound(r))
}
