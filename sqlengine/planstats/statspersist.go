package planstats

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/stats"

	"petrel/sqlengine/histogram"
	"petrel/storage"
)

// Persisted statistics: one JSON blob per table id in storage's metadata
// (as InnoDB keeps mysql.innodb_index_stats). Key values are stored as
// their SQL text and converted back by the column's type, so every
// indexable type round-trips through the code that parses literals.
// Statistics that no longer fit the table (an index renamed, a column
// type changed in place) are dropped on load and rebuilt by the refresh
// rule. A histogram is of an index's first column (statistic), so its
// keys are stored as that one value, whatever the index's width.

// persist stores ts as table id's statistics.
func (p *Provider) persist(id uint32, ts *tableStats) error {
	ctx := sql.NewEmptyContext()
	rec := histogram.TableRecord{Version: histogram.MetaVersion, Sig: ts.sig, Rows: ts.rows, At: ts.at.UnixNano()}
	for name, is := range ts.idx {
		s := is.stat
		first := s.Types()[:1]
		ir := histogram.IndexRecord{Name: name, Rows: s.RowCount(), Distinct: s.DistinctCount(), Nulls: s.NullCount(), Prefix: is.prefix}
		var err error
		if s.LowerBound() != nil {
			if ir.Lower, err = histogram.EncodeKey(ctx, first, s.LowerBound()[:1]); err != nil {
				return err
			}
		}
		for _, b := range s.Histogram() {
			br := histogram.BucketRecord{Rows: b.RowCount(), Distinct: b.DistinctCount(), Nulls: b.NullCount(), Bound: b.BoundCount(), McvCounts: b.McvCounts()}
			if br.Upper, err = histogram.EncodeKey(ctx, first, b.UpperBound()[:1]); err != nil {
				return err
			}
			for _, m := range b.Mcvs() {
				k, err := histogram.EncodeKey(ctx, first, m[:1])
				if err != nil {
					return err
				}
				br.Mcvs = append(br.Mcvs, k)
			}
			ir.Buckets = append(ir.Buckets, br)
		}
		rec.Indexes = append(rec.Indexes, ir)
	}
	blob, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return p.store.SetMetaSync(histogram.MetaKey(id), blob)
}

// load reads st's persisted statistics; nil if there are none or they no
// longer fit the table.
func (p *Provider) load(st *storage.Table) *tableStats {
	blob, err := p.store.GetMeta(histogram.MetaKey(st.Def.ID))
	if err != nil || blob == nil {
		return nil
	}
	var rec histogram.TableRecord
	if err := json.Unmarshal(blob, &rec); err != nil || rec.Version != histogram.MetaVersion || rec.Sig != statsSignature(st) {
		return nil
	}
	tb := p.tableOf(st)
	if tb == nil {
		return nil
	}
	ctx := sql.NewEmptyContext()
	indexes := indexes(ctx, tb)
	byName := map[string]Index{}
	for _, ix := range indexes {
		byName[strings.ToLower(ix.ID())] = ix
	}
	ts := &tableStats{sig: rec.Sig, rows: rec.Rows, at: time.Unix(0, rec.At), idx: map[string]*indexStats{}}
	ts.def.Store(st)
	for _, ir := range rec.Indexes {
		ix := byName[ir.Name]
		if ix == nil || len(ir.Prefix) != len(ix.KeyOrds()) {
			return nil
		}
		types := make([]sql.Type, len(ix.KeyOrds()))
		cols := make([]string, len(ix.KeyOrds()))
		for i, o := range ix.KeyOrds() {
			types[i] = st.Schema[o].Type
			cols[i] = strings.ToLower(st.Schema[o].Name)
		}
		ks := histogram.KeyStats{Rows: ir.Rows, Distinct: ir.Distinct, Nulls: ir.Nulls, Prefix: ir.Prefix}
		if ir.Lower != nil {
			if ks.Lower, err = histogram.DecodeKey(ctx, types[:1], ir.Lower); err != nil {
				return nil
			}
		}
		for _, br := range ir.Buckets {
			upper, err := histogram.DecodeKey(ctx, types[:1], br.Upper)
			if err != nil || len(br.Mcvs) != len(br.McvCounts) {
				return nil
			}
			var mcvs []sql.Row
			for _, m := range br.Mcvs {
				k, err := histogram.DecodeKey(ctx, types[:1], m)
				if err != nil {
					return nil
				}
				mcvs = append(mcvs, k)
			}
			ks.Buckets = append(ks.Buckets, stats.NewHistogramBucket(br.Rows, br.Distinct, br.Nulls, br.Bound, upper, br.McvCounts, mcvs))
		}
		dataLen, _ := tb.DataLength(ctx)
		is, err := p.statistic(tb, ix, types, cols, ks, dataLen, ts.at)
		if err != nil {
			return nil
		}
		ts.idx[ir.Name] = is
		ts.list = append(ts.list, is.stat)
	}
	if len(ts.idx) != len(indexes) {
		return nil
	}
	return ts
}
