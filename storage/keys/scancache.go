package keys

import (
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/shopspring/decimal"
)

// ScanCache is what a scan's decoding keeps from row to row: the kinds
// of the schema's columns, and the DECIMAL and DATE/DATETIME values it
// decoded last.
//
// Kinds: classifying each column's type for every row was a tenth of a
// scan that steps over ten columns to test an eleventh (TPC-H Q15's
// l_shipdate).
//
// Values, by their stored form: a value that repeats from row to row is
// built once and the same interface value returned again. A DECIMAL
// costs three allocations (its big.Int, the big.Int's word and the
// interface's copy of the Decimal) and a date one, and TPC-H's lineitem
// repeats them (50 quantities, 11 discounts, 9 tax rates and 2,500 ship
// dates over 600,000 rows; Q6's prefilter spent a third of its time
// building them). Decimals and times are immutable values, so rows may
// share them; a cache holds at most its slots' values alive.
// Direct-mapped: a miss builds the value and takes the slot.
//
// A ScanCache is used by one goroutine at a time (one iterator's), for
// rows of one schema.
//
// The value slots are made at a scan's first DECIMAL and its first
// DATE/DATETIME (32 and 128 KiB): a scan of other columns (sysbench's
// ranges) makes none.
type ScanCache struct {
	dec   *[scanCacheSlots]cachedDecimal
	when  *[timeCacheSlots]cachedTime
	kinds []columnKind // by column, set at the first row
}

// columnKind is classify's answer for a column.
type columnKind struct {
	k     kind
	width int
}

// kindsOf is the kinds of sch's columns, kept.
func (vc *ScanCache) kindsOf(sch sql.Schema) []columnKind {
	if len(vc.kinds) != len(sch) {
		vc.kinds = make([]columnKind, len(sch))
		for i, c := range sch {
			vc.kinds[i].k, vc.kinds[i].width = classify(c.Type)
		}
	}
	return vc.kinds
}

// scanCacheSlots and timeCacheSlots are powers of two (bits given):
// 1,024 decimals, and 4,096 dates, which covers the 2,526 days of
// TPC-H's seven years (a quarter of them missed with 1,024 slots).
const (
	scanCacheBits  = 10
	scanCacheSlots = 1 << scanCacheBits
	timeCacheBits  = 12
	timeCacheSlots = 1 << timeCacheBits
)

type cachedDecimal struct {
	c   int64
	e   int32
	set bool
	v   any
}

type cachedTime struct {
	us  int64
	set bool
	v   any
}

// slot hashes x to a slot (Fibonacci hashing).
func slot(x uint64, bits uint) int { return int((x * 0x9E3779B97F4A7C15) >> (64 - bits)) }

// decimal is decimal.New(c, e) as an interface value.
func (vc *ScanCache) decimal(c int64, e int32) any {
	if vc.dec == nil {
		vc.dec = new([scanCacheSlots]cachedDecimal)
	}
	s := &vc.dec[slot(uint64(c)^uint64(uint32(e))<<40, scanCacheBits)]
	if s.set && s.c == c && s.e == e {
		return s.v
	}
	*s = cachedDecimal{c: c, e: e, set: true, v: decimal.New(c, e)}
	return s.v
}

// time is the UTC time us microseconds after the epoch, as an interface
// value.
func (vc *ScanCache) time(us int64) any {
	if vc.when == nil {
		vc.when = new([timeCacheSlots]cachedTime)
	}
	s := &vc.when[slot(uint64(us), timeCacheBits)]
	if s.set && s.us == us {
		return s.v
	}
	*s = cachedTime{us: us, set: true, v: time.UnixMicro(us).UTC()}
	return s.v
}
