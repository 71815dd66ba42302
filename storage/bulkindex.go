package storage

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/batchrepr"
	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"

	"petrel/internal/base"
)

// A large non-unique index is built as a table file and ingested
// (ALTER TABLE ... ADD INDEX of 1M rows, issue 29).
//
// Through the transaction's batch the build cost four copies of its
// entries: the batch itself (grown by doubling), the sorted copy a large
// commit applies (sortedcommit.go), the memtable Pebble makes of it, and
// the table file its flush writes inside the commit's turn (a catalog
// change flushes), and the file was then compacted down the levels. Now
// the entries go to an arena in the batch's record format, which the
// commit sorts (the same radix sort) and writes to one table file before
// it takes its place in commit order; in its turn it ingests the file,
// then applies the batch (the catalog change). The index is new, so no
// other transaction writes its keys, and the file lands below every
// level's data at once.
//
// A crash between the ingestion and the catalog's flush leaves the
// entries of an index the catalog does not know, under an index id a
// later ADD INDEX of the table reuses. So every build first looks for
// keys under the new index's prefix; if any, it deletes them in its
// batch before its own entries and builds through the batch. A
// transaction whose batch deletes a range (DROP INDEX, a rewritten
// table's old copy) builds through the batch too: the batch is applied
// after the ingestion, and its deletion would cover the file's entries.

// bulkIndexAt is the arena size from which a build is ingested instead
// of written to the batch: the size at which the commit would apply the
// batch as a memtable of its own. 0: half the memtable size. A variable
// for tests.
var bulkIndexAt = 0

// bulkChunk is the arena size at which a build writes its entries so
// far to a table file of their own and starts again: the memory a build
// holds, and under the 4 GiB that a batch repr's offsets address. A
// variable for tests.
var bulkChunk = 256 << 20

// bulkIngests counts the index builds ingested (Petrel_index_ingests).
var bulkIngests atomic.Uint64

// IndexIngests is the number of index builds ingested as table files.
func IndexIngests() uint64 { return bulkIngests.Load() }

// ingestDirName is the directory, under Options.Dir, of the table files
// waiting for their commit's turn; Open empties it.
const ingestDirName = "petrel-ingest"

// bulkIndex is one index build waiting for its commit.
type bulkIndex struct {
	start, end []byte   // the index's key range
	repr       []byte   // its entries not yet in a file, as a batch's records (sets)
	n          uint32   // the number of entries in repr
	paths      []string // the table files written, each sorted
}

// bulkThreshold is the arena size from which a build is ingested.
func (e *Engine) bulkThreshold() int {
	if bulkIndexAt > 0 {
		return bulkIndexAt
	}
	return int(e.opts.MemTableSize / 2)
}

// appendSet appends a set of key to value to a batch repr.
func appendSet(repr, key, value []byte) []byte {
	repr = append(repr, byte(pebble.InternalKeyKindSet))
	repr = binary.AppendUvarint(repr, uint64(len(key)))
	repr = append(repr, key...)
	repr = binary.AppendUvarint(repr, uint64(len(value)))
	return append(repr, value...)
}

// entryValue returns the value of e's record (a set).
func entryValue(repr []byte, e *sortEntry) []byte {
	rec := repr[e.start+1 : e.end]
	n, l := binary.Uvarint(rec)
	rec = rec[l+int(n):]
	n, l = binary.Uvarint(rec)
	return rec[l : l+int(n)]
}

// spanHasKeys reports whether Pebble holds any key in [lo, hi).
func (e *Engine) spanHasKeys(lo, hi []byte) (bool, error) {
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return false, readErr(err)
	}
	found := it.First()
	if err := it.Error(); err != nil {
		it.Close()
		return false, readErr(err)
	}
	return found, readErr(it.Close())
}

// buildBulk builds a non-unique index's entries into an arena (the rows
// of tb from it, keys after a prefix of plen bytes, as buildEntries),
// kept for ingestion when large, else written to the batch.
func (t *Txn) buildBulk(it *pebble.Iterator, tb *Table, ix *Index, plen int) error {
	start := indexPrefix(nil, tb.Def.ID, ix.Def.ID)
	end := prefixEnd(start)
	stale, err := t.e.spanHasKeys(start, end)
	if err != nil {
		return err
	}
	if stale {
		// A crash left entries of an index of this id: delete them in
		// the batch, before the new ones (DropIndexData's way).
		if err := t.DropIndexData(tb, ix); err != nil {
			return err
		}
		return t.buildEntries(it, tb, ix, plen)
	}
	if t.rangeDeleted {
		// The batch, applied after an ingested file, would delete its
		// entries if a range it deletes covers them (a dropped index's
		// id reused in the same ALTER).
		return t.buildEntries(it, tb, ix, plen)
	}
	b := &bulkIndex{start: start, end: end, repr: make([]byte, batchrepr.HeaderLen, 1<<20)}
	total := 0
	err = indexEntries(it, tb, ix, plen, func(k, pkSuffix []byte) error {
		b.repr = appendSet(b.repr, k, pkSuffix)
		b.n++
		total++
		if total == 1 {
			b.reserve(t.e.ApproxRows(tb))
		}
		if len(b.repr) < bulkChunk {
			return nil
		}
		if len(t.bulk) == 0 || t.bulk[len(t.bulk)-1] != b {
			t.bulk = append(t.bulk, b) // its files are removed with the transaction
		}
		return t.e.writeBulkFile(b)
	})
	if err != nil {
		return err
	}
	if total == 0 {
		return nil
	}
	if len(b.paths) == 0 && len(b.repr) < t.e.bulkThreshold() {
		batchrepr.SetCount(b.repr, b.n)
		return t.bulkIntoBatch(b)
	}
	if err := t.noteLazy(start); err != nil {
		return err
	}
	if len(t.bulk) == 0 || t.bulk[len(t.bulk)-1] != b {
		t.bulk = append(t.bulk, b)
	}
	return nil
}

// bulkIntoBatch writes a build's entries to the transaction's batch.
func (t *Txn) bulkIntoBatch(b *bulkIndex) error {
	r := batchrepr.Read(b.repr)
	for len(r) > 0 {
		_, key, value, ok, err := r.Next()
		if err != nil || !ok {
			return base.Errorf(base.ClassInternal, "storage: index build: a record does not decode")
		}
		if err := t.putEntry(key, value); err != nil {
			return err
		}
	}
	return nil
}

// bulkRead moves the builds a read of [lo, hi) (point: the key lo) may
// meet into the batch, so that the transaction reads its own entries.
func (t *Txn) bulkRead(lo, hi []byte, point bool) error {
	kept := t.bulk[:0]
	var moved []*bulkIndex
	for _, b := range t.bulk {
		if len(b.paths) > 0 {
			// Some entries are in files (a large build): they are
			// ingested at commit. A read of the span inside the building
			// transaction does not see them; nothing reads a new index
			// before the DDL's commit.
			kept = append(kept, b)
			continue
		}
		meets := string(lo) < string(b.end) && (hi == nil || string(b.start) < string(hi))
		if point {
			meets = string(b.start) <= string(lo) && string(lo) < string(b.end)
		}
		if meets {
			moved = append(moved, b)
		} else {
			kept = append(kept, b)
		}
	}
	t.bulk = kept
	for _, b := range moved {
		if err := t.bulkIntoBatch(b); err != nil {
			return err
		}
	}
	return nil
}

// writeBulk writes each pending build to its table file, sorted: before
// the commit takes its place in commit order, so that a failure (a full
// disk) fails only this transaction, with nothing logged.
func (t *Txn) writeBulk() error {
	for _, b := range t.bulk {
		if b.n == 0 {
			continue
		}
		if err := t.e.writeBulkFile(b); err != nil {
			return err
		}
	}
	return nil
}

// writeBulkFile writes the entries of b's arena, sorted, to a new table
// file, and empties the arena.
func (e *Engine) writeBulkFile(b *bulkIndex) (err error) {
	batchrepr.SetCount(b.repr, b.n)
	ents, ok := sortedEntries(b.repr)
	if !ok {
		return base.Errorf(base.ClassInternal, "storage: index build: the entries do not decode")
	}
	fs := e.opts.FS
	dir := fs.PathJoin(e.opts.Dir, ingestDirName)
	if err := fs.MkdirAll(dir, 0o755); err != nil {
		return base.Wrap(classifyWriteErr(err), err, "storage: index build")
	}
	path := fs.PathJoin(dir, fmt.Sprintf("index-%d.sst", e.nextIngest.Add(1)))
	f, err := fs.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return base.Wrap(classifyWriteErr(err), err, "storage: index build")
	}
	defer func() {
		if err != nil {
			_ = fs.Remove(path)
		}
	}()
	// The lowest level's options: the file is ingested below all data.
	wo := e.popts.MakeWriterOptions(len(e.popts.Levels)-1, e.db.TableFormat())
	w := sstable.NewWriter(objstorageprovider.NewFileWritable(f), wo)
	for i := range ents {
		if err := w.Set(entryKey(b.repr, &ents[i]), entryValue(b.repr, &ents[i])); err != nil {
			w.Close()
			return base.Wrap(classifyWriteErr(err), err, "storage: index build")
		}
	}
	if err := w.Close(); err != nil {
		return base.Wrap(classifyWriteErr(err), err, "storage: index build")
	}
	b.paths = append(b.paths, path)
	b.repr, b.n = b.repr[:batchrepr.HeaderLen], 0
	return nil
}

// ingestBulk ingests the transaction's table files (in its commit's
// turn, before its batch: the batch's own writes of the index, if any,
// are newer).
func (t *Txn) ingestBulk() error {
	if len(t.bulk) == 0 {
		return nil
	}
	// A build's files overlap each other (each is one chunk of its
	// entries, sorted), so each is ingested alone: Pebble places a file
	// above those it overlaps.
	for _, b := range t.bulk {
		for _, p := range b.paths {
			if err := t.e.db.Ingest(context.Background(), []string{p}); err != nil {
				return err
			}
		}
		bulkIngests.Add(1)
	}
	t.dropBulk()
	return nil
}

// dropBulk forgets the pending builds and removes their files (Pebble
// removed or linked those it ingested).
func (t *Txn) dropBulk() {
	for _, b := range t.bulk {
		b.remove(t.e.opts.FS)
	}
	t.bulk = nil
}

// remove removes b's files.
func (b *bulkIndex) remove(fs vfs.FS) {
	for _, p := range b.paths {
		_ = fs.Remove(p)
	}
	b.paths = nil
}

// reserve sizes the arena, holding its first entry, for rows entries of
// about that size and an eighth more, up to a chunk: growing by
// doubling would copy it and, while copying, hold half as much again as
// it ends with.
func (b *bulkIndex) reserve(rows uint64) {
	per := uint64(len(b.repr) - batchrepr.HeaderLen)
	want := min(batchrepr.HeaderLen+rows*per*9/8, uint64(bulkChunk)+2*per)
	if want <= uint64(cap(b.repr)) {
		return
	}
	grown := make([]byte, len(b.repr), want)
	copy(grown, b.repr)
	b.repr = grown
}
