package storage

import "encoding/binary"

// undoLog is a transaction's undo records (undoRec), packed back to back
// in chunks of bytes (issue 29): a record as a struct of two slices cost
// about twice its bytes, kept its key's and value's allocations alive,
// and gave the collector three pointers to scan, for each row a large
// transaction wrote. A record is a flag byte (existed), the key and the
// previous value, each after its uvarint length; no record spans chunks.
// Chunks grow from undoChunkMin to undoChunkMax bytes, so a small
// transaction takes little and a large one never copies what it wrote.
//
// A log past undoSpillAt bytes in memory writes its full chunks to a
// file (undospill.go): chunks[i] is nil for a chunk in the file.
type undoLog struct {
	chunks [][]byte
	offs   []uint64 // chunk<<32 | offset, of each record
	// mem is the capacity of the chunks in memory.
	mem int
	// files opens the spill file (nil: the log never spills); sp is the
	// file part, once there is one.
	files *undoFiles
	sp    *undoSpill
}

const (
	undoChunkMin = 1 << 10
	undoChunkMax = 1 << 20
)

func (u *undoLog) len() int { return len(u.offs) }

// add appends a record.
func (u *undoLog) add(key, prev []byte, existed bool) {
	n := 1 + 2*binary.MaxVarintLen32 + len(key) + len(prev)
	last := len(u.chunks) - 1
	if last < 0 || cap(u.chunks[last])-len(u.chunks[last]) < n {
		size := undoChunkMin
		if last >= 0 {
			size = min(2*cap(u.chunks[last]), undoChunkMax)
		}
		u.chunks = append(u.chunks, make([]byte, 0, max(size, n)))
		u.mem += max(size, n)
		last++
		if u.mem > undoSpillAt {
			u.spillChunks()
		}
	}
	c := u.chunks[last]
	u.offs = append(u.offs, uint64(last)<<32|uint64(len(c)))
	var f byte
	if existed {
		f = 1
	}
	c = append(c, f)
	c = binary.AppendUvarint(c, uint64(len(key)))
	c = append(c, key...)
	c = binary.AppendUvarint(c, uint64(len(prev)))
	c = append(c, prev...)
	u.chunks[last] = c
}

// at is record i; its key and prev point into the log and stay valid
// until it is truncated below i, or, when the record's chunk is in the
// spill file, until the next call.
func (u *undoLog) at(i int) (undoRec, error) {
	o := u.offs[i]
	c, err := u.chunk(int(o >> 32))
	if err != nil {
		return undoRec{}, err
	}
	c = c[uint32(o):]
	r := undoRec{existed: c[0] == 1}
	kl, n := binary.Uvarint(c[1:])
	c = c[1+n:]
	r.key = c[:kl:kl]
	c = c[kl:]
	pl, n := binary.Uvarint(c)
	c = c[n:]
	if pl > 0 {
		r.prev = c[:pl:pl]
	}
	return r, nil
}

// truncate keeps the first n records.
func (u *undoLog) truncate(n int) error {
	if n >= len(u.offs) {
		return nil
	}
	o := u.offs[n]
	ci := int(o >> 32)
	if err := u.unspill(ci); err != nil {
		return err
	}
	u.chunks[ci] = u.chunks[ci][:uint32(o)]
	for _, c := range u.chunks[ci+1:] {
		u.mem -= cap(c)
	}
	clear(u.chunks[ci+1:])
	u.chunks = u.chunks[:ci+1]
	u.offs = u.offs[:n]
	return nil
}
