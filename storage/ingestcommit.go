package storage

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/batchrepr"
	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// A very large commit is ingested as a table file (issue 29 item 4).
//
// The sorted route (sortedcommit.go) held a second copy of the whole
// batch: the sorted batch was built while the transaction's own batch
// was still alive (222 MB beside the batch's 256 MB for a 1M-row UPDATE
// of sbtest), and Pebble kept the copy as a memtable until a flush wrote
// it out. From ingestCommitAt on, a commit instead writes its sorted
// writes (the last write of each key, as the sorted route) straight to
// one table file, lets its batch go, and ingests the file in its turn:
// the memory held beyond the batch is the sort's entries and the
// writer's blocks, and nothing of it stays after the apply.
//
// An ingestion is atomic (the file's keys become visible at once, at one
// sequence number), ordered with batches (Pebble gives it the next
// sequence number after every batch applied before it, and the commit
// turn orders it with the other commits), and durable when it returns
// (the file and the manifest are synced, or with Pebble's WAL an
// ingestion record is). The file holds the commit's sequence number and
// sink position (metaLastSeq, metaSinkPos) with its rows, as a batch
// would. With Options.LogIsWAL storage must never hold durably a commit
// that follows one it would lose: every commit writes those meta keys,
// so while any commit is in a memtable the file overlaps that memtable,
// and Pebble then stacks the file above the memtables (a "flushable
// ingest", flushed in order after them, under the same rule as any
// memtable: logwal.go) or flushes them first; only when no commit is
// unflushed does the file go straight to the LSM.
//
// Only transactions whose batch holds plain sets and deletions take this
// route (sortedEntries): a range deletion covers some of the batch's
// writes and not others. Catalog changes and index builds (bulkindex.go)
// keep the batch route: the first flush inside their turn, the second
// ingests its own files before the batch. If the file cannot be written
// (a full disk), the commit applies its batch as before.

// ingestCommitAt is the batch size from which a commit is ingested; 0
// turns the route off. A variable for tests.
var ingestCommitAt = 16 << 20

// commitIngests counts the commits ingested (Petrel_commit_ingests).
var commitIngests atomic.Uint64

// CommitIngests is the number of commits applied as table files.
func CommitIngests() uint64 { return commitIngests.Load() }

// canIngestCommit reports whether t's commit may take the ingested
// route, by its kind; its batch decides the rest (commitFile).
func (t *Txn) canIngestCommit() bool {
	return ingestCommitAt > 0 && !t.catalogDirty && len(t.bulk) == 0 && t.batch != nil && t.batch.Len() >= ingestCommitAt
}

// commitFile writes the transaction's writes, sorted, the last write of
// each key, to a new table file under the ingest directory and returns
// its path: the spill files' (batchspill.go) and its batch's. "" if the
// batch holds other kinds of writes than sets and deletions, or the file
// could not be written: the caller applies the batch, with the spilled
// writes loaded back into it.
func (t *Txn) commitFile() string {
	e := t.e
	repr := t.batch.Repr()
	ents, ok := sortedEntries(repr)
	if !ok && len(repr) > batchrepr.HeaderLen {
		return ""
	}
	fs := e.opts.FS
	dir := fs.PathJoin(e.opts.Dir, ingestDirName)
	path := fs.PathJoin(dir, fmt.Sprintf("commit-%d.sst", e.nextIngest.Add(1)))
	wo := e.popts.MakeWriterOptions(0, e.db.TableFormat())
	var err error
	if len(t.spill) > 0 {
		err = writeMergedCommitFile(fs, dir, path, wo, t.spill, repr, ents)
	} else {
		err = writeCommitFile(fs, dir, path, wo, repr, ents)
	}
	if err != nil {
		_ = fs.Remove(path)
		e.opts.Logger.Warn("storage: a large commit is applied as a batch: its table file could not be written", "err", err)
		return ""
	}
	return path
}

// largeCommitFile is the table file the commit ingests instead of
// applying its batch, "" for none (the batch holds every write then: the
// spilled ones are loaded back). A large commit's undo records go first:
// past this point nothing rolls back.
func (t *Txn) largeCommitFile() (string, error) {
	if len(t.spill) == 0 && !t.canIngestCommit() {
		return "", nil
	}
	t.dropUndo()
	if len(t.spill) > 0 && (t.catalogDirty || len(t.bulk) > 0) {
		return "", t.unspillBatch()
	}
	if f := t.commitFile(); f != "" {
		t.dropSpill()
		return f, nil
	}
	return "", t.unspillBatch()
}

// unspillBatch makes the transaction's batch hold its spilled writes
// again, before its own.
func (t *Txn) unspillBatch() error {
	if len(t.spill) == 0 {
		return nil
	}
	nb := t.e.db.NewBatch()
	if err := t.unspill(nb); err != nil {
		nb.Close()
		return err
	}
	if err := nb.Apply(t.batch, nil); err != nil {
		nb.Close()
		return err
	}
	t.batch.Close()
	t.batch = nb
	return nil
}

// writeCommitFile writes the entries ents of repr to the table file path.
// Level 0's writer options: the file overlaps the memtables or recent
// data, so Pebble places it high in the LSM.
func writeCommitFile(fs vfs.FS, dir, path string, wo sstable.WriterOptions, repr []byte, ents []sortEntry) error {
	if err := fs.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := fs.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return err
	}
	w := sstable.NewWriter(objstorageprovider.NewFileWritable(f), wo)
	for i := range ents {
		e := &ents[i]
		if pebble.InternalKeyKind(repr[e.start]) == pebble.InternalKeyKindDelete {
			err = w.Delete(entryKey(repr, e))
		} else {
			err = w.Set(entryKey(repr, e), entryValue(repr, e))
		}
		if err != nil {
			_ = w.Close()
			return err
		}
	}
	return w.Close()
}

// ingestCommit ingests a commit's table file, in its turn.
func (e *Engine) ingestCommit(path string) error {
	if err := e.db.Ingest(context.Background(), []string{path}); err != nil {
		return err
	}
	commitIngests.Add(1)
	return nil
}

// dropUndo lets the undo records go at a large commit, past which nothing
// rolls back (a failed commit finishes the transaction): a 1M-row
// UPDATE's record offsets alone are 32 MB, and its spill file is removed.
// Nothing reads them after the turn is taken: the transaction's read
// view (snapshot.go), which does, is not used again.
func (t *Txn) dropUndo() {
	t.undo.release()
	t.undo = undoLog{}
}
