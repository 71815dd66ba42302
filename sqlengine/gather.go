package sqlengine

import "sync"

// Gathered writes. vitess writes a result through a 16 KiB buffer, one
// socket write each time it fills; a whole-table scan (the seed's
// mysqlslap reads a few hundred KiB per SELECT) then costs a write
// syscall, and a wake-up of the client, per 16 KiB, and on loopback
// those writes cost about three times what the same bytes cost in 190
// KiB writes (both ends' CPU). While a scan streams its rows the
// connection gathers what vitess writes and sends it in writes of up to
// gatherMax; the scan flushes the rest before it returns, so nothing
// waits past the statement (vitess's own last write, the end of the
// result, follows).

// gatherMax is the most a connection gathers before it writes.
const gatherMax = 128 << 10

var gatherBufs = sync.Pool{New: func() any { b := make([]byte, 0, gatherMax+16<<10); return &b }}

// startGather makes the connection gather its writes until endGather.
// Used by the connection's own goroutine, the only writer then.
func (c *cmdConn) startGather() {
	if c.gather != nil || (c.comp != nil && c.comp.armed) {
		return
	}
	c.gather = gatherBufs.Get().(*[]byte)
}

// endGather writes what was gathered and stops gathering.
func (c *cmdConn) endGather() error {
	if c.gather == nil {
		return nil
	}
	err := c.flushGather()
	b := c.gather
	c.gather = nil
	if cap(*b) <= 2*gatherMax {
		gatherBufs.Put(b)
	}
	return err
}

// flushGather writes the gathered bytes.
func (c *cmdConn) flushGather() error {
	b := *c.gather
	*c.gather = b[:0]
	if len(b) == 0 {
		return nil
	}
	_, err := c.emit(b)
	return err
}
