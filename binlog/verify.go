package binlog

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"petrel/internal/base"
)

// Checking a file at startup. Every event of every file is read and its
// checksum verified. Where a file stops being a chain of whole, valid
// events, the rest of it is searched for a valid event: one found means
// the damage has data after it (corruption); none means the file simply
// ends in a write that was interrupted (a torn tail). See checkFile.

// fileCheck is what checkFile found in one binlog file.
type fileCheck struct {
	name  string
	size  uint64
	inUse bool // the FORMAT_DESCRIPTION has InUseFlag: not finished
	// header is the end of the PREVIOUS_GTIDS event (0: the header is not
	// whole).
	header uint64
	prevAt uint64        // offset of the PREVIOUS_GTIDS event
	prev   *base.GTIDSet // PREVIOUS_GTIDS
	gtids  *base.GTIDSet // GTIDs of the whole transactions
	// validEnd is the end of the last whole transaction or header event:
	// where the file is cut when what follows is dropped.
	validEnd uint64
	// bad is the first place the file stops being whole and valid (nil:
	// every byte belongs to a valid event; the file may still end inside
	// a transaction, validEnd < size).
	bad *damage
}

// damage is a place where a file stops being a chain of valid events.
type damage struct {
	at     uint64 // offset of the first event that is not whole and valid
	reason string
	// next is the offset of the first valid event after at, 0 if there is
	// none: the damage then runs to the end of the file (a torn tail if
	// the file is the last one).
	next uint64
	// after counts the transactions (GTID events) of the valid events from
	// next on, and lists their GTIDs: what cutting at the damage drops.
	after      int
	afterGTIDs *base.GTIDSet
}

// torn reports whether nothing valid follows the damage.
func (d *damage) torn() bool { return d.next == 0 }

// prevAndOwn is the GTID set a file's successor starts with: its
// PREVIOUS_GTIDS and its own transactions.
func (c *fileCheck) executed() *base.GTIDSet {
	s := c.prev.Clone()
	s.AddSet(c.gtids)
	return s
}

// whole reports whether c is a finished file: a whole header, every event
// valid, no transaction cut short.
func (c *fileCheck) whole() bool {
	return c.bad == nil && c.header > 0 && c.validEnd == c.size
}

// problem describes what is wrong with a file that is not whole.
func (c *fileCheck) problem() (at uint64, reason string) {
	switch {
	case c.bad != nil:
		return c.bad.at, c.bad.reason
	case c.header == 0:
		return c.validEnd, "the file ends inside its header"
	default:
		return c.validEnd, "the file ends inside a transaction"
	}
}

// checkFile reads a whole binlog file, verifying every event's size,
// checksum and next-position field and the transaction boundaries. Only
// I/O errors are returned: damage is reported in the result. Memory use
// is bounded by the largest event.
//
// The rule for damage at offset X (an event that is cut short, has an
// impossible size, a wrong checksum or next position, or cannot be
// parsed; zeros are damage too): the bytes after X are searched for a
// valid event, that is a header whose size fits in the file, whose next
// position is its own end and whose checksum matches. If there is one,
// the damage has data after it (fileCheck.bad.next). If there is none,
// the file ends in damage: what a write interrupted by a crash leaves,
// whatever the bytes are (a partial event, garbage, zeros).
func checkFile(path string) (fileCheck, error) {
	c := fileCheck{name: path, prev: base.NewGTIDSet(), gtids: base.NewGTIDSet()}
	f, err := os.Open(path)
	if err != nil {
		return c, fmt.Errorf("binlog: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return c, fmt.Errorf("binlog: %w", err)
	}
	c.size = uint64(st.Size())
	magic := make([]byte, 4)
	n, err := f.ReadAt(magic, 0)
	if err != nil && err != io.EOF {
		return c, fmt.Errorf("binlog: %s: %w", path, err)
	}
	if !bytes.Equal(magic[:n], Magic[:n]) {
		c.bad = &damage{at: 0, reason: "bad magic number: not a binlog file", next: 4}
		return c, nil
	}
	if n < 4 {
		c.bad = &damage{at: 0, reason: "the file ends inside its magic number"}
		return c, nil
	}
	c.validEnd = 4
	br := bufio.NewReaderSize(io.NewSectionReader(f, 4, st.Size()-4), 1<<20)
	var (
		buf     []byte
		pos     = uint64(4)
		claimed uint64 // size the damaged event's header claims, if sane
		txn     *base.GTID
		inTxn   bool
		events  int
	)
	bad := func(format string, args ...any) {
		c.bad = &damage{at: pos, reason: fmt.Sprintf(format, args...)}
	}
	for pos < c.size && c.bad == nil {
		if c.size-pos < HeaderLen {
			bad("the file ends inside an event header")
			break
		}
		hdr, err := br.Peek(HeaderLen)
		if err != nil {
			return c, fmt.Errorf("binlog: %s at offset %d: %w", path, pos, err)
		}
		size := uint64(binary.LittleEndian.Uint32(hdr[9:]))
		if size < HeaderLen+ChecksumLen || size > maxEventSize {
			bad("event size field %d", size)
			break
		}
		claimed = size
		if pos+size > c.size {
			bad("the file ends inside an event of %d bytes", size)
			break
		}
		if uint64(cap(buf)) < size {
			buf = make([]byte, size)
		}
		ev := buf[:size]
		if _, err := io.ReadFull(br, ev); err != nil {
			return c, fmt.Errorf("binlog: %s at offset %d: %w", path, pos, err)
		}
		h, err := ParseHeader(ev)
		if err != nil {
			bad("%v", err)
			break
		}
		end := pos + size
		if uint64(h.NextPos) != end&0xffffffff {
			bad("next position field %d in an event ending at %d", h.NextPos, end)
			break
		}
		switch {
		case events == 0 && h.Type != FormatDescriptionEvent:
			bad("the first event is type %d, not a FORMAT_DESCRIPTION", h.Type)
			continue
		case events == 1 && h.Type != PreviousGTIDsEvent:
			bad("the second event is type %d, not PREVIOUS_GTIDS", h.Type)
			continue
		}
		events++
		switch h.Type {
		case FormatDescriptionEvent:
			c.inUse = h.Flags&InUseFlag != 0
			if txn == nil {
				c.validEnd = end
			}
		case PreviousGTIDsEvent:
			set, err := base.DecodeGTIDSet(Body(ev))
			if err != nil {
				bad("PREVIOUS_GTIDS: %v", err)
				continue
			}
			c.prev, c.prevAt, c.header, c.validEnd = set, pos, end, end
		case RotateEvent, StopEvent:
			if txn == nil {
				c.validEnd = end
			}
		case GTIDEvent:
			g, err := ParseGTID(Body(ev))
			if err != nil {
				bad("%v", err)
				continue
			}
			txn, inTxn = &g.GTID, false
		case QueryEvent:
			q, err := ParseQuery(Body(ev))
			if err != nil {
				bad("%v", err)
				continue
			}
			if q.Query == "BEGIN" {
				inTxn = true
			} else if txn != nil && !inTxn {
				// A DDL statement is a transaction of its own.
				c.gtids.Add(*txn)
				txn, c.validEnd = nil, end
			}
		case XIDEvent, TransactionPayloadEvent:
			if txn != nil {
				c.gtids.Add(*txn)
			}
			txn, inTxn, c.validEnd = nil, false, end
		}
		pos = end
	}
	if c.bad != nil {
		if err := c.bad.look(f, c.size, claimed); err != nil {
			return c, fmt.Errorf("binlog: %s: %w", path, err)
		}
	}
	return c, nil
}

// look searches the file after the damage for a valid event (see
// checkFile) and counts the transactions of the chain of events found.
// claimed is the size the damaged event's header gives, when sane: a byte
// changed inside an event leaves the next one at that distance.
func (d *damage) look(f *os.File, size, claimed uint64) error {
	next := uint64(0)
	if claimed > 0 && d.at+claimed < size {
		ok, err := validEventAt(f, d.at+claimed, size)
		if err != nil {
			return err
		}
		if ok {
			next = d.at + claimed
		}
	}
	if next == 0 {
		var err error
		if next, err = scanForEvent(f, d.at+1, size); err != nil {
			return err
		}
	}
	if next == 0 {
		return nil
	}
	d.next = next
	d.afterGTIDs = base.NewGTIDSet()
	// Follow the chain from there, counting transactions.
	r := io.NewSectionReader(f, int64(next), int64(size-next))
	br := bufio.NewReaderSize(r, 1<<20)
	pos := next
	for pos+HeaderLen <= size {
		hdr, err := br.Peek(HeaderLen)
		if err != nil {
			break
		}
		n := uint64(binary.LittleEndian.Uint32(hdr[9:]))
		if n < HeaderLen+ChecksumLen || n > maxEventSize || pos+n > size {
			break
		}
		ev := make([]byte, n)
		if _, err := io.ReadFull(br, ev); err != nil {
			break
		}
		if _, err := ParseHeader(ev); err != nil {
			break
		}
		if ev[4] == GTIDEvent {
			if g, err := ParseGTID(Body(ev)); err == nil {
				d.after++
				d.afterGTIDs.Add(g.GTID)
			}
		}
		pos += n
	}
	return nil
}

// validEventAt reports whether a valid event starts at off: its size fits
// in the file, its next position is its end, its checksum matches.
func validEventAt(f *os.File, off, size uint64) (bool, error) {
	if off+HeaderLen+ChecksumLen > size {
		return false, nil
	}
	var hdr [HeaderLen]byte
	if _, err := f.ReadAt(hdr[:], int64(off)); err != nil {
		return false, err
	}
	n := uint64(binary.LittleEndian.Uint32(hdr[9:]))
	if n < HeaderLen+ChecksumLen || n > maxEventSize || off+n > size ||
		binary.LittleEndian.Uint32(hdr[13:]) != uint32(off+n) {
		return false, nil
	}
	ev := make([]byte, n)
	if _, err := f.ReadAt(ev, int64(off)); err != nil {
		return false, err
	}
	_, err := ParseHeader(ev)
	return err == nil, nil
}

// scanForEvent returns the first offset in [from, size) where a valid
// event starts, or 0. Headers are screened in memory (size sane, next
// position equal to its own end); only candidates are checksummed.
func scanForEvent(f *os.File, from, size uint64) (uint64, error) {
	const window = 1 << 20
	buf := make([]byte, window+HeaderLen)
	for start := from; start+HeaderLen+ChecksumLen <= size; start += window {
		n, err := f.ReadAt(buf[:min(uint64(len(buf)), size-start)], int64(start))
		if err != nil && err != io.EOF {
			return 0, err
		}
		for i := 0; i+HeaderLen <= n && i < window; i++ {
			off := start + uint64(i)
			sz := uint64(binary.LittleEndian.Uint32(buf[i+9:]))
			if sz < HeaderLen+ChecksumLen || sz > maxEventSize || off+sz > size ||
				binary.LittleEndian.Uint32(buf[i+13:]) != uint32(off+sz) {
				continue
			}
			ok, err := validEventAt(f, off, size)
			if err != nil {
				return 0, err
			}
			if ok {
				return off, nil
			}
		}
	}
	return 0, nil
}
