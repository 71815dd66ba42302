package storage

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/batchrepr"
	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"

	"petrel/internal/base"
)

// A lazy batch past batchSpillAt is written to a file and started again
// (issue 29 item 4).
//
// The batch of a 1M-row UPDATE or INSERT ... SELECT was 256 MB held
// until COMMIT (and 384 MB while Pebble grew it from 128 MB by
// doubling). Its writes cannot go to Pebble before COMMIT: Pebble shows
// every applied write to every reader, and Petrel has no MVCC layer of
// its own to hide them. But while the batch is lazy (lazybatch.go) the
// transaction never reads it: every read goes to Pebble alone, or makes
// the batch indexed first (indexNow). So a lazy batch past batchSpillAt
// is written, sorted with the last write of each key, to a spill file in
// the ingest directory, outside Pebble and invisible to everyone, and
// the transaction goes on with an empty batch. Files and batch hold the
// writes in order: each file's writes are older than the next file's,
// and the batch's are the newest.
//   - A read that needs the batch (indexNow) first loads the files back
//     into the indexed batch, oldest first, then the batch: the same
//     writes in the same order, the memory as before.
//   - A statement's rollback writes its undo records into the batch,
//     newer than anything in the files, as it would without them.
//   - At COMMIT the files and the batch are merged, the newest write of
//     each key, into one table file that is ingested (ingestcommit.go):
//     atomic and invisible until its turn, as the batch was. If that
//     file cannot be written, the files are loaded back into the batch
//     and it is applied as before.
//   - Rollback removes the files; Open empties the directory.
// Only lazy batches spill, so only sets and deletions are in the files
// (a catalog write or a range deletion indexes the batch first).

// batchSpillAt is the lazy batch size from which it is spilled; a
// variable for tests (0: never). Below 32 MiB, so the batch, grown by
// doubling, stays at 32 MiB.
var batchSpillAt = 28 << 20

// batchSpills counts the batches spilled (Petrel_batch_spills).
var batchSpills atomic.Uint64

// BatchSpills is the number of transaction batches spilled to files.
func BatchSpills() uint64 { return batchSpills.Load() }

// spillFile is one spilled part of a transaction's writes.
type spillFile struct {
	path string
	n    uint32 // writes
	size int    // bytes of records
}

// maybeSpill spills the lazy batch once it passed batchSpillAt.
func (t *Txn) maybeSpill() error {
	if batchSpillAt <= 0 || !t.lazy || t.batch == nil || t.batch.Len() < batchSpillAt || t.catalogDirty || len(t.bulk) > 0 {
		return nil
	}
	repr := t.batch.Repr()
	ents, ok := sortedEntries(repr)
	if !ok {
		return nil
	}
	e := t.e
	fs := e.opts.FS
	dir := fs.PathJoin(e.opts.Dir, ingestDirName)
	path := fs.PathJoin(dir, fmt.Sprintf("spill-%d", e.nextIngest.Add(1)))
	size, err := writeSpillFile(fs, dir, path, repr, ents)
	if err != nil {
		_ = fs.Remove(path)
		// The batch goes on growing in memory.
		e.opts.Logger.Warn("storage: a large transaction's batch stays in memory: its spill file could not be written", "err", err)
		return nil
	}
	t.spill = append(t.spill, spillFile{path: path, n: uint32(len(ents)), size: size})
	t.spillBytes += t.batch.Len()
	t.batch.Close()
	t.batch = e.db.NewBatch()
	batchSpills.Add(1)
	return nil
}

// writeSpillFile writes the records ents of repr, in their order, to
// path; it returns their bytes. Not synced: the file does not outlive
// the process's use of it.
func writeSpillFile(fs vfs.FS, dir, path string, repr []byte, ents []sortEntry) (int, error) {
	if err := fs.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	f, err := fs.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 256<<10)
	size := 0
	for i := range ents {
		rec := repr[ents[i].start:ents[i].end]
		size += len(rec)
		if _, err := w.Write(rec); err != nil {
			f.Close()
			return 0, err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	return size, f.Close()
}

// dropSpill removes the transaction's spill files.
func (t *Txn) dropSpill() {
	for _, s := range t.spill {
		_ = t.e.opts.FS.Remove(s.path)
	}
	t.spill, t.spillBytes = nil, 0
}

// unspill loads the spill files back, oldest first, into b, which the
// batch's own writes are then applied to by the caller.
func (t *Txn) unspill(b *pebble.Batch) error {
	for _, s := range t.spill {
		data, err := readSpillFile(t.e.opts.FS, s)
		if err != nil {
			return base.Wrap(base.ClassStorageIO, err, "storage: read a transaction's spill file")
		}
		part := t.e.db.NewBatch()
		if err := part.SetRepr(data); err != nil {
			part.Close()
			return base.Wrap(base.ClassCorrupt, err, "storage: a transaction's spill file")
		}
		err = b.Apply(part, nil)
		part.Close()
		if err != nil {
			return err
		}
	}
	t.dropSpill()
	return nil
}

// readSpillFile returns s's records as a batch repr.
func readSpillFile(fs vfs.FS, s spillFile) ([]byte, error) {
	f, err := fs.Open(s.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data := make([]byte, batchrepr.HeaderLen+s.size)
	if _, err := io.ReadFull(f, data[batchrepr.HeaderLen:]); err != nil {
		return nil, err
	}
	batchrepr.SetCount(data, s.n)
	return data, nil
}

// spillReader reads a spill file's records in order.
type spillReader struct {
	f        vfs.File
	r        *bufio.Reader
	kind     pebble.InternalKeyKind
	key, val []byte
	ok       bool
}

func openSpill(fs vfs.FS, path string) (*spillReader, error) {
	f, err := fs.Open(path)
	if err != nil {
		return nil, err
	}
	s := &spillReader{f: f, r: bufio.NewReaderSize(f, 256<<10)}
	if err := s.next(); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

// next reads the next record (ok false at the end).
func (s *spillReader) next() error {
	k, err := s.r.ReadByte()
	if err == io.EOF {
		s.ok = false
		return nil
	}
	if err != nil {
		return err
	}
	s.kind = pebble.InternalKeyKind(k)
	if s.key, err = s.readBytes(s.key); err != nil {
		return err
	}
	s.val = s.val[:0]
	if s.kind == pebble.InternalKeyKindSet {
		if s.val, err = s.readBytes(s.val); err != nil {
			return err
		}
	}
	s.ok = true
	return nil
}

func (s *spillReader) readBytes(buf []byte) ([]byte, error) {
	n, err := binary.ReadUvarint(s.r)
	if err != nil {
		return nil, unexpectedEOF(err)
	}
	if uint64(cap(buf)) >= n {
		buf = buf[:n]
	} else {
		buf = make([]byte, n)
	}
	if _, err := io.ReadFull(s.r, buf); err != nil {
		return nil, unexpectedEOF(err)
	}
	return buf, nil
}

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// writeMergedCommitFile writes to path the newest write of each key of
// the spill files (oldest first) and of the batch's entries ents of
// repr, merged in key order.
func writeMergedCommitFile(fs vfs.FS, dir, path string, wo sstable.WriterOptions, spill []spillFile, repr []byte, ents []sortEntry) (err error) {
	if err := fs.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	readers := make([]*spillReader, 0, len(spill))
	defer func() {
		for _, r := range readers {
			r.f.Close()
		}
	}()
	for _, s := range spill {
		r, err := openSpill(fs, s.path)
		if err != nil {
			return err
		}
		readers = append(readers, r)
	}
	f, err := fs.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return err
	}
	w := sstable.NewWriter(objstorageprovider.NewFileWritable(f), wo)
	defer func() {
		if err != nil {
			_ = w.Close()
		}
	}()
	bi := 0 // the batch's next entry
	for {
		// The smallest key among the sources' heads; the newest source
		// holding it (the batch, then the later files) wins.
		var key []byte
		for _, r := range readers {
			if r.ok && (key == nil || bytes.Compare(r.key, key) < 0) {
				key = r.key
			}
		}
		var bkey []byte
		if bi < len(ents) {
			bkey = entryKey(repr, &ents[bi])
		}
		if key == nil && bkey == nil {
			break
		}
		if bkey != nil && (key == nil || bytes.Compare(bkey, key) <= 0) {
			kind := pebble.InternalKeyKind(repr[ents[bi].start])
			if kind == pebble.InternalKeyKindDelete {
				err = w.Delete(bkey)
			} else {
				err = w.Set(bkey, entryValue(repr, &ents[bi]))
			}
			if err != nil {
				return err
			}
			for _, r := range readers {
				if r.ok && bytes.Equal(r.key, bkey) {
					if err = r.next(); err != nil {
						return err
					}
				}
			}
			bi++
			continue
		}
		var newest *spillReader
		for _, r := range readers {
			if r.ok && bytes.Equal(r.key, key) {
				newest = r
			}
		}
		if newest.kind == pebble.InternalKeyKindDelete {
			err = w.Delete(newest.key)
		} else {
			err = w.Set(newest.key, newest.val)
		}
		if err != nil {
			return err
		}
		k := append([]byte(nil), key...)
		for _, r := range readers {
			if r.ok && bytes.Equal(r.key, k) {
				if err = r.next(); err != nil {
					return err
				}
			}
		}
	}
	return w.Close()
}
