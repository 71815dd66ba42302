package binlog

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"

	"petrel/internal/base"
	"petrel/storage"
)

// With the log as storage's only WAL and sync_binlog=0, the log is still
// fsynced before every memtable flush, so the position storage holds
// durably never passes the log's durable end.
func TestMemtableFlushSyncsTheLogFirst(t *testing.T) {
	dir := t.TempDir()
	fs := vfs.NewCrashableMem()
	r := openRigWith(t, fs, filepath.Join(dir, "binlog"), rigMode{memTable: 64 << 10})
	defer r.log.Close()
	r.log.SetSyncBinlog(0)
	r.createTable(t)
	_, groups0, _ := r.log.StatsSnapshot()
	for i := int64(1); i <= 3000; i++ {
		if err := insert(r.store, i); err != nil {
			t.Fatal(err)
		}
	}
	_, groups, _ := r.log.StatsSnapshot()
	if groups == groups0 {
		t.Fatalf("no log fsync during 3000 commits over a 64 KiB memtable with sync_binlog=0: flushes did not sync the log")
	}
	// What storage holds durably (its crash image) never needs more of
	// the log than is durable.
	crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	st, err := storage.Open(storage.Options{Dir: "db", FS: crashed, Logger: quiet, LogIsWAL: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sp, err := st.SinkPos()
	if err != nil || sp == nil {
		t.Fatalf("flushed storage has no log position (err %v): nothing was flushed", err)
	}
	pos, _, err := DecodeSinkPos(sp)
	if err != nil {
		t.Fatal(err)
	}
	synced := r.log.SyncedPosition()
	if pos.File != synced.File || pos.Pos > synced.Pos {
		t.Fatalf("storage durably holds the log up to %s, but the log is durable only up to %s", pos, synced)
	}
	t.Logf("%d log fsyncs (all from flushes); storage durable at %s, log durable at %s", groups-groups0, pos, synced)
}

// PURGE first makes storage durable past the files it deletes: after a
// crash, nothing storage needs from a purged file is lost; and commits
// after the purge, which only the remaining file holds while storage's
// durable position still names the purged one, are replayed.
func TestPurgeFlushesStorageFirst(t *testing.T) {
	dir := t.TempDir()
	fs := vfs.NewCrashableMem()
	r := openRig(t, fs, filepath.Join(dir, "binlog"))
	defer r.log.Close()
	r.createTable(t)
	for i := int64(1); i <= 50; i++ {
		if err := insert(r.store, i); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.log.Rotate(); err != nil {
		t.Fatal(err)
	}
	if err := r.log.PurgeTo(r.log.Current().File); err != nil {
		t.Fatal(err)
	}
	if n := len(r.log.Files()); n != 1 {
		t.Fatalf("%d files after PURGE TO the current one", n)
	}
	crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	copyDir(t, filepath.Join(dir, "binlog"), filepath.Join(dir, "binlog2"))
	r2 := openRig(t, crashed, filepath.Join(dir, "binlog2"))
	defer r2.log.Close()
	if ids := storageIDs(t, r2.store); len(ids) != 50 {
		t.Fatalf("after PURGE and a crash storage holds %d rows, want 50", len(ids))
	}

	for i := int64(51); i <= 60; i++ {
		if err := insert(r.store, i); err != nil {
			t.Fatal(err)
		}
	}
	crashed = fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	copyDir(t, filepath.Join(dir, "binlog"), filepath.Join(dir, "binlog3"))
	r3 := openRig(t, crashed, filepath.Join(dir, "binlog3"))
	defer r3.log.Close()
	if ids := storageIDs(t, r3.store); len(ids) != 60 {
		t.Fatalf("after PURGE, 10 commits and a crash storage holds %d rows, want 60", len(ids))
	}
}

// A store run with the log as its WAL and not closed cleanly refuses to
// open without it (only the log can complete it); after a clean close it
// opens either way.
func TestStoreNeedsItsLogAfterACrash(t *testing.T) {
	dir := t.TempDir()
	fs := vfs.NewCrashableMem()
	r := openRig(t, fs, filepath.Join(dir, "binlog"))
	r.createTable(t)
	for i := int64(1); i <= 10; i++ {
		if err := insert(r.store, i); err != nil {
			t.Fatal(err)
		}
	}
	crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	_, err := storage.Open(storage.Options{Dir: "db", FS: crashed, Logger: quiet})
	if err == nil || !strings.Contains(err.Error(), "log_bin") {
		t.Fatalf("opening a crashed log-is-WAL store without its log: err %v, want a refusal naming log_bin", err)
	}
	// With the log it recovers every row.
	copyDir(t, filepath.Join(dir, "binlog"), filepath.Join(dir, "binlog2"))
	r2 := openRig(t, crashed, filepath.Join(dir, "binlog2"))
	if ids := storageIDs(t, r2.store); len(ids) != 10 {
		t.Fatalf("recovered %d rows, want 10", len(ids))
	}
	if err := r2.log.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r2.store.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := storage.Open(storage.Options{Dir: "db", FS: crashed, Logger: quiet})
	if err != nil {
		t.Fatalf("after a clean close: %v", err)
	}
	defer st.Close()
	txn := st.Begin()
	defer txn.Rollback()
	if ids := storageIDs(t, st); len(ids) != 10 {
		t.Fatalf("after a clean close and reopening without the log: %d rows, want 10", len(ids))
	}
	r.log.Close()
}

// Replicated transactions durable in the relay log commit without a
// binlog fsync; the replica's own commits still fsync (sync_binlog=1).
func TestRelayDurableCommitsSkipTheFsync(t *testing.T) {
	r := openRig(t, vfs.NewMem(), t.TempDir())
	defer r.log.Close()
	r.createTable(t)
	other, err := base.ParseSID("9e11fa47-71ca-11e1-9e33-c80aa9429599")
	if err != nil {
		t.Fatal(err)
	}
	tb := r.store.Catalog().Table("db", "t")
	_, g0, _ := r.log.StatsSnapshot()
	for i := int64(1); i <= 20; i++ {
		txn := r.store.Begin()
		txn.SetOrigin(storage.Origin{GTID: base.GTID{SID: other, GNO: i}, ServerID: 9, RelayDurable: true})
		if err := txn.Insert(context.Background(), tb, sql.Row{i, "replicated"}); err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	_, g1, _ := r.log.StatsSnapshot()
	if g1 != g0 {
		t.Fatalf("%d binlog fsyncs for 20 relay-durable commits, want 0", g1-g0)
	}
	if err := insert(r.store, 100); err != nil {
		t.Fatal(err)
	}
	if _, g2, _ := r.log.StatsSnapshot(); g2 != g1+1 {
		t.Fatalf("%d binlog fsyncs for one local commit, want 1", g2-g1)
	}
	if ids := storageIDs(t, r.store); len(ids) != 21 {
		t.Fatalf("storage holds %d rows, want 21", len(ids))
	}
	if ex := r.log.Executed(); ex.Last(other) != 20 {
		t.Fatalf("gtid_executed %s lacks the replicated transactions", ex)
	}
}
