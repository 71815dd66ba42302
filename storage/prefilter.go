package storage

import (
	"github.com/dolthub/go-mysql-server/sql"

	"petrel/storage/keys"
)

// Prefilter makes a primary-key scan (neither covered nor locking) decode
// first only the columns of cols (ordinals of the table's schema), pass
// that partial row to keep, and decode the rest of a row (Project's
// columns) only when keep accepts it. keep must reject only rows the
// statement would reject anyway (a necessary condition of its filter),
// must not keep the row (its text values alias the stored bytes) and
// must not read other columns (they are nil). A scan whose filter keeps
// one row in a hundred (TPC-H Q14's month of lineitem) builds the
// DECIMALs and strings of that one. False when the iterator cannot.
func (r *RowIter) Prefilter(cols []int, keep func(sql.Row) (bool, error)) bool {
	if !r.primary || r.started || keep == nil || len(cols) == 0 {
		return false
	}
	want := make([]bool, len(r.tb.Schema))
	for _, o := range cols {
		if o < 0 || o >= len(want) {
			return false
		}
		want[o] = true
	}
	r.pre = &prefilter{want: want, keep: keep}
	return true
}

// prefilter is Prefilter's state: the columns it reads, its test and the
// row it decodes them into (reused).
type prefilter struct {
	want    []bool
	keep    func(sql.Row) (bool, error)
	scratch sql.Row
	// rejected counts the rows keep turned down.
	rejected uint64
}

// Prefiltered is how many rows the iterator's Prefilter turned down.
func (r *RowIter) Prefiltered() uint64 {
	if r.pre == nil {
		return 0
	}
	return r.pre.rejected
}

// passes runs the prefilter on the stored row v.
func (p *prefilter) passes(v []byte, sch sql.Schema, vc *keys.ScanCache) (bool, error) {
	row, err := keys.DecodeRowPrefix(p.scratch, v, sch, p.want, vc)
	if err != nil {
		return false, err
	}
	p.scratch = row
	ok, err := p.keep(row)
	if err == nil && !ok {
		p.rejected++
	}
	return ok, err
}
