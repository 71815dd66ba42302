package keys

import (
	"time"

	"github.com/shopspring/decimal"
)

// ValueCache keeps the DECIMAL and DATE/DATETIME values a scan decoded
// last, by their stored form, so that a value that repeats from row to
// row is built once and the same interface value returned again: a
// DECIMAL costs three allocations (its big.Int, the big.Int's word and
// the interface's copy of the Decimal) and a date one, and TPC-H's
// lineitem repeats them (50 quantities, 11 discounts, 9 tax rates and
// 2,500 ship dates over 600,000 rows; Q6's prefilter spent a third of
// its time building them). Decimals and times are immutable values, so
// rows may share them; a cache holds at most its slots' values alive.
// Direct-mapped: a miss builds the value and takes the slot.
//
// A ValueCache is used by one goroutine at a time (one iterator's).
type ValueCache struct {
	dec  [valueCacheSlots]cachedDecimal
	when [valueCacheSlots]cachedTime
}

// valueCacheSlots is a power of two.
const valueCacheSlots = 1024

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
func slot(x uint64) int { return int((x * 0x9E3779B97F4A7C15) >> (64 - 10)) }

// decimal is decimal.New(c, e) as an interface value.
func (vc *ValueCache) decimal(c int64, e int32) any {
	s := &vc.dec[slot(uint64(c)^uint64(uint32(e))<<40)]
	if s.set && s.c == c && s.e == e {
		return s.v
	}
	*s = cachedDecimal{c: c, e: e, set: true, v: decimal.New(c, e)}
	return s.v
}

// time is the UTC time us microseconds after the epoch, as an interface
// value.
func (vc *ValueCache) time(us int64) any {
	s := &vc.when[slot(uint64(us))]
	if s.set && s.us == us {
		return s.v
	}
	*s = cachedTime{us: us, set: true, v: time.UnixMicro(us).UTC()}
	return s.v
}
