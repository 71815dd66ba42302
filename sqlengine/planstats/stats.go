package planstats

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/stats"

	"petrel/sqlengine/histogram"
	"petrel/storage"
)

// Table and index statistics for GMS's cost-based planner (issue 18).
//
// Row counts are storage's live counters (moved by every commit). Index
// statistics -- a histogram and per-prefix distinct counts for every
// index of a table -- are built by ANALYZE TABLE, persisted as a metadata
// blob per table id (a restart keeps them; DDL that rewrites a table gives
// it a new id and so fresh statistics), and refreshed in the background by
// InnoDB's persistent-statistics rule (refreshDue) while
// innodb_stats_auto_recalc is ON. GMS only costs a table's indexes with
// real histograms when every index has one, which an analysis guarantees.

// MinInterval is the least time between two automatic analyses of a
// table (InnoDB's MIN_RECALC_INTERVAL).
const MinInterval = 10 * time.Second

// refreshDue is InnoDB's rule for recalculating persistent statistics: a
// table is analysed again once more than 10% of the rows it had at the
// last analysis have changed (any change, for a table analysed empty).
func refreshDue(analysedRows, changed uint64) bool { return changed > analysedRows/10 }

// Provider implements sql.StatsProvider. Safe for concurrent use.
type Provider struct {
	store *storage.Engine
	// tableOf is the backend's table of a definition; nil if its
	// database is gone.
	tableOf func(st *storage.Table) Table
	log     *slog.Logger
	now     func() time.Time
	// auto reports innodb_stats_auto_recalc.
	auto func() bool

	mu sync.Mutex
	// tables holds the statistics loaded or built, by table id; a nil
	// entry means none are stored.
	tables map[uint32]*tableStats
	// busy marks tables being analysed in the background; tried holds
	// when each table's last automatic analysis started (a failing one is
	// retried once per MinInterval, not at every plan).
	busy  map[uint32]bool
	tried map[uint32]time.Time
	// custom holds SetStats's statistics (ANALYZE ... UPDATE HISTOGRAM),
	// by qualifier and columns.
	custom map[string]sql.Statistic
	wg     sync.WaitGroup
}

// tableStats is one analysis of a table. Immutable once published.
type tableStats struct {
	// sig is statsSignature of the definition analysed; def caches the
	// last *storage.Table found to match it.
	sig     string
	def     atomic.Pointer[storage.Table]
	rows    uint64    // rows at the analysis
	changed uint64    // storage.RowsChanged at the analysis
	at      time.Time // when it was made (or loaded)
	idx     map[string]*indexStats
	list    []sql.Statistic
	// sample is read on the planner's first need (filtersample.go).
	sample filterSample
}

type indexStats struct {
	stat   sql.Statistic
	prefix []uint64 // distinct counts of the first 1..n columns
}

var _ sql.StatsProvider = (*Provider)(nil)

// Options configure a Provider.
type Options struct {
	Store *storage.Engine
	Log   *slog.Logger
	// TableOf is the backend's table of a definition (nil if its
	// database is gone).
	TableOf func(st *storage.Table) Table
	// AutoRecalc reports innodb_stats_auto_recalc.
	AutoRecalc func() bool
	// Now is the clock of analyses' times and of the refresh interval;
	// nil: time.Now.
	Now func() time.Time
}

// New makes a provider.
func New(o Options) *Provider {
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Provider{
		store:   o.Store,
		tableOf: o.TableOf,
		log:     o.Log,
		now:     o.Now,
		auto:    o.AutoRecalc,
		tables:  map[uint32]*tableStats{},
		busy:    map[uint32]bool{},
		tried:   map[uint32]time.Time{},
		custom:  map[string]sql.Statistic{},
	}
}

// current returns tb's statistics (loading them on first use) and starts a
// background analysis when they are due.
func (p *Provider) current(tb Table) *tableStats {
	st, err := tb.Latest()
	if err != nil {
		return nil
	}
	if p.store.WriteError() != nil {
		// Storage has failed (a full disk, a removed datadir): a read of a
		// file Pebble has not opened yet would park the query for good
		// (Pebble's Fatalf never returns), and statistics only help the
		// planner, so none are loaded or refreshed.
		return nil
	}
	ts := p.lookup(st)
	p.maybeRefresh(tb, st, ts)
	return ts
}

// Published is every table's statistics loaded or built so far.
func (p *Provider) Published() []sql.Statistic {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []sql.Statistic
	for _, ts := range p.tables {
		if ts != nil {
			out = append(out, ts.list...)
		}
	}
	return out
}

// Refresh loads tb's statistics if they are not yet, and starts a
// background analysis when one is due (the index choice's first look at
// a table).
func (p *Provider) Refresh(tb Table) { p.current(tb) }

// lookup returns st's statistics, loading them on first use; nil if there
// are none or they describe another definition of the table (DDL that
// kept its id changed its indexes or columns).
func (p *Provider) lookup(st *storage.Table) *tableStats {
	id := st.Def.ID
	p.mu.Lock()
	ts, loaded := p.tables[id]
	p.mu.Unlock()
	if !loaded {
		ts = p.load(st)
		p.mu.Lock()
		p.tables[id] = ts
		p.mu.Unlock()
	}
	if ts == nil || ts.def.Load() == st {
		return ts
	}
	if ts.sig != statsSignature(st) {
		return nil
	}
	ts.def.Store(st)
	return ts
}

// statsSignature names what a table's statistics depend on: its indexes'
// names and columns and the columns' types.
func statsSignature(st *storage.Table) string {
	var b strings.Builder
	fmt.Fprintf(&b, "pk%v", st.Def.PK)
	for _, ix := range st.Indexes {
		fmt.Fprintf(&b, ";%s%v", strings.ToLower(ix.Def.Name), ix.Ords)
	}
	for _, c := range st.Schema {
		fmt.Fprintf(&b, ";%s", c.Type.String())
	}
	return b.String()
}

// maybeRefresh starts a background analysis of tb when refreshDue says so,
// at most one per table at a time and one per MinInterval.
func (p *Provider) maybeRefresh(tb Table, st *storage.Table, ts *tableStats) {
	if st.Hidden && len(st.Indexes) == 0 {
		return // no index to describe; the row count is live
	}
	changed := p.store.RowsChanged(st)
	var analysed uint64
	if ts != nil {
		if changed < ts.changed { // counters restart with the server
			changed = ts.changed
		}
		changed -= ts.changed
		analysed = ts.rows
		if p.now().Sub(ts.at) < MinInterval {
			return
		}
	} else {
		// Never analysed: due as soon as the table has rows.
		changed = max(changed, p.store.ApproxRows(st))
	}
	if !refreshDue(analysed, changed) || !p.auto() {
		return
	}
	id := st.Def.ID
	now := p.now()
	p.mu.Lock()
	if last, ok := p.tried[id]; p.busy[id] || ok && now.Sub(last) < MinInterval {
		p.mu.Unlock()
		return
	}
	p.busy[id] = true
	p.tried[id] = now
	p.wg.Add(1)
	p.mu.Unlock()
	done := func() {
		p.mu.Lock()
		delete(p.busy, id)
		p.mu.Unlock()
		p.wg.Done()
	}
	started := p.store.Go(func(closing <-chan struct{}) {
		defer done()
		if err := p.analyze(sql.NewEmptyContext(), tb, closing); err != nil && !errors.Is(err, errStatsStopped) && !errors.Is(err, storage.ErrClosing) {
			p.log.Warn("sqlengine: automatic ANALYZE TABLE failed", "table", tb.Database()+"."+tb.Name(), "err", err)
		}
	})
	if !started {
		done()
	}
}

// RefreshChanged starts a background analysis of every table whose rows
// changed past refreshDue since its last one, as InnoDB's statistics
// thread does after DML, without waiting for a plan to ask: a plan
// that asked first was made with the old statistics, so the first
// queries after a bulk load planned from the statistics of its first
// rows (TPC-H Q2 at SF 1 right after go-tpc's load: 10.3 s, then 0.3 s
// once a refresh had run). The engine calls it every CheckInterval.
func (p *Provider) RefreshChanged() {
	if p.store.WriteError() != nil || !p.auto() {
		return
	}
	for _, d := range p.store.Catalog().Databases() {
		for _, st := range d.Tables() {
			if p.store.ApproxRows(st) < minCheckedRows {
				continue
			}
			if tb := p.tableOf(st); tb != nil {
				p.maybeRefresh(tb, st, p.lookup(st))
			}
		}
	}
}

// minCheckedRows: smaller tables are left to the plans that read their
// statistics, as before the periodic check. Their live row count serves
// the planner well enough, and an analysis reads every row: eight rows
// of 60 MB each (e2e TestPacketMemory) put 480 MB in the block cache
// that nothing else had read, and the server's memory did not fall back
// after the statements.
const minCheckedRows = 1000

// CheckInterval is how often the engine looks for tables whose
// statistics are due (RefreshChanged).
const CheckInterval = 3 * time.Second

// errStatsStopped ends an automatic analysis when the server closes.
var errStatsStopped = errors.New("sqlengine: statistics: the server is closing")

// Wait blocks until the background analyses started so far are done.
func (p *Provider) Wait() { p.wg.Wait() }

// analyze reads tb's rows (a sample of each index's keys past
// statsMaxSample) in one consistent read, builds every index's
// statistics, persists them and publishes them. It gives up with
// errStatsStopped once stop is closed (nil: never).
func (p *Provider) analyze(ctx *sql.Context, tb Table, stop <-chan struct{}) error {
	st, err := tb.Latest()
	if err != nil {
		return err
	}
	changed := p.store.RowsChanged(st)
	if _, err := tb.GetIndexes(ctx); err != nil {
		return err
	}
	indexes := indexes(ctx, tb)
	ts := &tableStats{sig: statsSignature(st), changed: changed, at: p.now(), idx: map[string]*indexStats{}}
	ts.def.Store(st)
	if len(indexes) == 0 {
		ts.rows = p.store.ApproxRows(st)
		p.mu.Lock()
		p.tables[st.Def.ID] = ts
		p.mu.Unlock()
		return nil
	}
	var need []int
	seen := map[int]bool{}
	for _, ix := range indexes {
		for _, o := range ix.KeyOrds() {
			if !seen[o] {
				seen[o] = true
				need = append(need, o)
			}
		}
	}
	txn := p.store.Begin()
	defer txn.Rollback()
	it, err := txn.Scan(ctx, st, 0, nil, nil, false)
	if err != nil {
		return err
	}
	defer it.Close()
	it.Uncounted()
	it.Project(need)
	rng := rand.New(rand.NewSource(int64(st.Def.ID)))
	var sample []sql.Row
	var total uint64
	for {
		row, err := it.Next()
		if err != nil {
			return err
		}
		if row == nil {
			break
		}
		total++
		if total%1024 == 0 && stop != nil {
			select {
			case <-stop:
				return errStatsStopped
			default:
			}
		}
		if len(sample) < histogram.MaxSample {
			sample = append(sample, row)
		} else if j := rng.Int63n(int64(total)); j < histogram.MaxSample {
			sample[j] = row
		}
	}
	ts.rows = total
	dataLen, _ := tb.DataLength(ctx)
	for _, ix := range indexes {
		ords := ix.KeyOrds()
		types := make([]sql.Type, len(ords))
		cols := make([]string, len(ords))
		for i, o := range ords {
			types[i] = st.Schema[o].Type
			cols[i] = strings.ToLower(st.Schema[o].Name)
		}
		keys := make([]sql.Row, len(sample))
		for i, row := range sample {
			k := make(sql.Row, len(ords))
			for j, o := range ords {
				k[j] = row[o]
			}
			keys[i] = k
		}
		ks := histogram.Build(ctx, types, keys, total, ix.IsUnique())
		if len(types) > 1 {
			// The histogram is of the first column only (see statistic).
			first := make([]sql.Row, len(keys))
			for i, k := range keys {
				first[i] = k[:1]
			}
			h := histogram.Build(ctx, types[:1], first, total, false)
			ks.Lower, ks.Buckets, ks.Distinct, ks.Nulls = h.Lower, h.Buckets, h.Distinct, h.Nulls
		}
		is, err := p.statistic(tb, ix, types, cols, ks, dataLen, ts.at)
		if err != nil {
			return err
		}
		ts.idx[strings.ToLower(ix.ID())] = is
		ts.list = append(ts.list, is.stat)
	}
	p.mu.Lock()
	p.tables[st.Def.ID] = ts
	p.mu.Unlock()
	// Published even when it cannot be kept (writes refused): the planner
	// uses it until the next start.
	return p.persist(st.Def.ID, ts)
}

// statistic wraps one index's analysis as GMS's statistic, with the
// functional dependencies the memo reads from it. The statistic names
// every column of the index: GMS's index coster applies only filters on
// the statistic's columns, so a statistic of the first column alone made
// every lookup by a composite key a range over its first column (issue
// 29: a full-key lookup of stock read, and locked, a whole warehouse).
// The histogram still describes the first column only, its keys padded
// with NULLs to the index's width (padKey): GMS v0.20.0's histogram union
// and intersection (stats.Union, stats.Intersect, costing OR filters)
// compare every position of two keys after the first has already moved
// past one of them, which with distinct later values indexes past a
// slice's end and panics; equal later values keep them on their path.
// The per-prefix distinct counts keep every column.
func (p *Provider) statistic(tb Table, ix Index, types []sql.Type, cols []string, ks histogram.KeyStats, dataLen uint64, at time.Time) (*indexStats, error) {
	qual := sql.NewStatQualifier(strings.ToLower(tb.Database()), "", strings.ToLower(tb.Name()), strings.ToLower(ix.ID()))
	var avg uint64
	if ks.Rows > 0 {
		avg = dataLen / max(tb.ApproxRows(), 1)
	}
	n := len(cols)
	buckets := make([]sql.HistogramBucket, len(ks.Buckets))
	for i, b := range ks.Buckets {
		var mcvs []sql.Row
		for _, m := range b.Mcvs() {
			mcvs = append(mcvs, padKey(m, n))
		}
		buckets[i] = stats.NewHistogramBucket(b.RowCount(), b.DistinctCount(), b.NullCount(), b.BoundCount(), padKey(b.UpperBound(), n), b.McvCounts(), mcvs)
	}
	var lower sql.Row
	if ks.Lower != nil {
		lower = padKey(ks.Lower, n)
	}
	s := stats.NewStatistic(ks.Rows, ks.Distinct, ks.Nulls, avg, at, qual, cols, types, buckets, sql.IndexClassDefault, lower)
	fds, colset, err := stats.IndexFds(strings.ToLower(tb.Name()), tb.Schema(), ix)
	if err != nil {
		return nil, err
	}
	return &indexStats{stat: histogram.NewStatistic(s).WithFuncDeps(fds).WithColSet(colset), prefix: ks.Prefix}, nil
}

// padKey returns a histogram key of the first index column (k[:1]) widened
// to n columns with NULLs (see statistic).
func padKey(k sql.Row, n int) sql.Row {
	out := make(sql.Row, n)
	if len(k) > 0 {
		out[0] = k[0]
	}
	return out
}

// PrefixCounts returns the rows of db.table and the distinct count of
// index's first n columns at the last analysis (MySQL's CARDINALITY of
// Seq_in_index n), or false without statistics.
func (p *Provider) PrefixCounts(db, table, index string, n int) (rows, distinct uint64, ok bool) {
	st := p.store.Catalog().Table(db, table)
	if st == nil {
		return 0, 0, false
	}
	ts := p.lookup(st)
	if ts == nil {
		return 0, 0, false
	}
	is := ts.idx[strings.ToLower(index)]
	if is == nil || n < 1 || n > len(is.prefix) {
		return 0, 0, false
	}
	return ts.rows, is.prefix[n-1], true
}

// AnalyzeTable implements sql.StatsProvider (ANALYZE TABLE).
func (p *Provider) AnalyzeTable(ctx *sql.Context, table sql.Table, _ string) error {
	tb, ok := Unwrap(table)
	if !ok {
		return nil // information_schema, performance_schema: nothing to analyse
	}
	return p.analyze(ctx, tb, nil)
}

// GetTableStats implements sql.StatsProvider.
func (p *Provider) GetTableStats(_ *sql.Context, db string, table sql.Table) ([]sql.Statistic, error) {
	tb, ok := Unwrap(table)
	if !ok {
		return nil, nil
	}
	ts := p.current(tb)
	if ts == nil {
		return nil, nil
	}
	return ts.list, nil
}

// GetStats implements sql.StatsProvider.
func (p *Provider) GetStats(_ *sql.Context, qual sql.StatQualifier, cols []string) (sql.Statistic, bool) {
	p.mu.Lock()
	c, ok := p.custom[customKey(qual, cols)]
	p.mu.Unlock()
	if ok {
		return c, true
	}
	st := p.store.Catalog().Table(qual.Database, qual.Tab)
	if st == nil {
		return nil, false
	}
	tb := p.tableOf(st)
	if tb == nil {
		return nil, false
	}
	ts := p.current(tb)
	if ts == nil {
		return nil, false
	}
	is := ts.idx[strings.ToLower(qual.Idx)]
	if is == nil || len(cols) != len(is.stat.Columns()) {
		return nil, false
	}
	for i, c := range cols {
		if !strings.EqualFold(c, is.stat.Columns()[i]) {
			return nil, false
		}
	}
	return is.stat, true
}

func customKey(qual sql.StatQualifier, cols []string) string {
	return strings.ToLower(fmt.Sprintf("%s.(%s)", qual, strings.Join(cols, ",")))
}

// SetStats implements sql.StatsProvider (ANALYZE TABLE ... UPDATE
// HISTOGRAM); such statistics live until restart.
func (p *Provider) SetStats(_ *sql.Context, s sql.Statistic) error {
	p.mu.Lock()
	p.custom[customKey(s.Qualifier(), s.Columns())] = s
	p.mu.Unlock()
	return nil
}

// DropStats implements sql.StatsProvider (ANALYZE TABLE ... DROP
// HISTOGRAM).
func (p *Provider) DropStats(_ *sql.Context, qual sql.StatQualifier, cols []string) error {
	p.mu.Lock()
	delete(p.custom, customKey(qual, cols))
	p.mu.Unlock()
	return nil
}

// DropDbStats implements sql.StatsProvider: a dropped database's tables
// are gone, and their ids are never reused, so nothing is left to drop.
func (p *Provider) DropDbStats(*sql.Context, string, bool) error { return nil }

// RowCount implements sql.StatsProvider: the live row counter.
func (p *Provider) RowCount(_ *sql.Context, _ string, table sql.Table) (uint64, error) {
	tb, ok := Unwrap(table)
	if !ok {
		return 0, nil
	}
	return tb.ApproxRows(), nil
}

// DataLength implements sql.StatsProvider.
func (p *Provider) DataLength(ctx *sql.Context, _ string, table sql.Table) (uint64, error) {
	tb, ok := Unwrap(table)
	if !ok {
		return 0, nil
	}
	return tb.DataLength(ctx)
}
