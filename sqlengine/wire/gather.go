package wire

import "sync"

// Gathered writes. vitess writes a result through a 16 KiB buffer, one
// socket write each time it fills; a whole-table scan (the seed's
// mysqlslap reads a few hundred KiB per SELECT) then costs a write
// syscall, and a wake-up of the client, per 16 KiB, and on loopback
// those writes cost about three times what the same bytes cost in 190
// KiB writes (both ends' CPU). While a scan streams its rows the
// connection gathers what vitess writes and sends it in writes of up to
// GatherMax; the scan flushes the rest before it returns, so nothing
// waits past the statement (vitess's own last write, the end of the
// result, follows).

// GatherMax is the most a connection gathers before it writes.
const GatherMax = 128 << 10

var gatherBufs = sync.Pool{New: func() any { b := make([]byte, 0, GatherMax+16<<10); return &b }}

// startGather makes the connection gather its writes until endGather.
// Used by the connection's own goroutine, the only writer then.
func (c *Conn) StartGather() {
	if c.gather != nil || (c.comp != nil && c.comp.armed) {
		return
	}
	c.gather = gatherBufs.Get().(*[]byte)
	c.gatherSent = false
}

// endGather writes what was gathered and stops gathering.
func (c *Conn) EndGather() error {
	if c.gather == nil {
		return nil
	}
	err := c.FlushGather()
	b := c.gather
	c.gather = nil
	if cap(*b) <= 2*GatherMax {
		gatherBufs.Put(b)
	}
	return err
}

// flushGather writes the gathered bytes, under net_write_timeout as
// Write's are (a long scan writes only through here).
func (c *Conn) FlushGather() error {
	b := *c.gather
	*c.gather = b[:0]
	if len(b) == 0 {
		return nil
	}
	c.gatherSent = true
	if connPhase(c.phase.Load()) == phaseCommand {
		c.refreshWriteDeadline()
	}
	_, err := c.emit(b)
	return err
}

// Rows written here. The scan fast path writes the row packets of a
// result itself, straight into the gathered bytes (scanFields.appendPacket),
// after vitess wrote the result's column definitions; vitess's sequence
// ids are then behind the client's by the packets it did not write,
// which Conn corrects for the rest of the command as it does during
// the TLS handshake (seqShift, renumber): the next command starts again
// at 0.

// gatheredSeq is the sequence id after the last packet gathered; ok
// only when the gathered bytes are whole packets (gathering started at
// a packet boundary, nothing was sent since, and vitess's buffer was
// flushed).
func (c *Conn) GatheredSeq() (next byte, ok bool) {
	if c.gather == nil || c.gatherSent {
		return 0, false
	}
	b := *c.gather
	i := 0
	for i+4 <= len(b) {
		n := int(b[i]) | int(b[i+1])<<8 | int(b[i+2])<<16
		next = b[i+3] + 1
		i += 4 + n
		ok = true
	}
	return next, ok && i == len(b)
}

// wrote notes n packets written past vitess (modulo 256): its later
// packets in this command are renumbered by as many.
func (c *Conn) Wrote(n byte) {
	if n == 0 {
		return
	}
	c.wrLeft = 0 // vitess's next write starts a packet
	c.seqShift.Add(int32(n))
}
