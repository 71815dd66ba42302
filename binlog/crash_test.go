package binlog

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"

	"petrel/internal/base"
	"petrel/internal/failpoint"
	"petrel/storage"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

var testSID = func() base.SID { s, _ := base.ParseSID("3e11fa47-71ca-11e1-9e33-c80aa9429562"); return s }()

type rig struct {
	fs    *vfs.MemFS
	dir   string
	store *storage.Engine
	log   *Log
}

// openRig opens storage and log as the server does: the log is storage's
// only write-ahead log.
func openRig(t *testing.T, fs *vfs.MemFS, dir string) *rig {
	t.Helper()
	return openRigWith(t, fs, dir, rigMode{})
}

// rigMode varies the rig: pebbleWAL keeps Pebble's own WAL (the mode
// before the binlog became storage's WAL); memTable sets a small memtable
// so flushes (and the log sync before each) happen under load.
type rigMode struct {
	pebbleWAL bool
	memTable  uint64
}

func (m rigMode) String() string {
	if m.pebbleWAL {
		return "pebble-wal"
	}
	return fmt.Sprintf("log-is-wal-%dk", m.memTable>>10)
}

func openRigWith(t *testing.T, fs *vfs.MemFS, dir string, m rigMode) *rig {
	t.Helper()
	r, err := tryOpenRig(t, fs, dir, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// tryOpenRig opens storage and log, with edit changing the log's options;
// if the log refuses to open, storage is closed and the error returned.
func tryOpenRig(t *testing.T, fs *vfs.MemFS, dir string, m rigMode, edit func(*Options)) (*rig, error) {
	t.Helper()
	st, err := storage.Open(storage.Options{Dir: "db", FS: fs, Logger: quiet, LogIsWAL: !m.pebbleWAL, MemTableSize: m.memTable})
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Dir: dir, ServerUUID: testSID, Logger: quiet, Store: st}
	if edit != nil {
		edit(&o)
	}
	l, err := Open(o)
	if err != nil {
		st.Close()
		return nil, err
	}
	st.SetSink(l)
	return &rig{fs: fs, dir: dir, store: st, log: l}, nil
}

func (r *rig) createTable(t *testing.T) *storage.Table {
	t.Helper()
	txn := r.store.Begin()
	if err := r.store.Catalog().CreateDatabase(txn, "db", 0); err != nil {
		t.Fatal(err)
	}
	tb, err := r.store.Catalog().CreateTable(txn, storage.TableDef{
		Database: "db", Name: "t", PK: []int{0},
		Columns: []storage.ColumnDef{{Name: "id", Type: "bigint", PrimaryKey: true}, {Name: "v", Type: "varchar(32)", Nullable: true}},
	})
	if err != nil {
		t.Fatal(err)
	}
	txn.LogQuery("db", "CREATE TABLE t (id BIGINT PRIMARY KEY, v VARCHAR(32))")
	if err := txn.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	return tb
}

func insert(st *storage.Engine, id int64) error {
	tb := st.Catalog().Table("db", "t")
	txn := st.Begin()
	if err := txn.Insert(context.Background(), tb, sql.Row{id, fmt.Sprint("v", id)}); err != nil {
		txn.Rollback()
		return err
	}
	return txn.Commit(context.Background())
}

func storageIDs(t *testing.T, st *storage.Engine) []int64 {
	t.Helper()
	tb := st.Catalog().Table("db", "t")
	if tb == nil {
		return nil
	}
	txn := st.Begin()
	defer txn.Rollback()
	it, err := txn.Scan(context.Background(), tb, 0, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []int64
	for {
		row, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if row == nil {
			return out
		}
		out = append(out, row[0].(int64))
	}
}

// logIDs decodes every inserted id from the log files.
func logIDs(t *testing.T, l *Log) []int64 {
	t.Helper()
	var out []int64
	eachRowsEvent(t, l, func(_ byte, re *RowsEvent) {
		for _, row := range re.After {
			out = append(out, toInt64(row[0]))
		}
	})
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// eachRowsEvent decodes every rows event of the log's files, in order,
// and gives it to fn with its event type.
func eachRowsEvent(t *testing.T, l *Log, fn func(typ byte, re *RowsEvent)) {
	t.Helper()
	for _, f := range l.Files() {
		p, _ := l.Path(f.Name)
		r, err := OpenReader(p)
		if err != nil {
			t.Fatal(err)
		}
		tr := &txnReader{r: r, file: f.Name}
		for {
			txn, err := tr.next()
			if err != nil {
				break
			}
			maps := map[uint64]*TableMap{}
			for _, ev := range txn.Events {
				switch {
				case ev[4] == TableMapEvent:
					tm, err := ParseTableMap(Body(ev))
					if err != nil {
						t.Fatal(err)
					}
					maps[tm.TableID] = tm
				case IsRowsEvent(ev[4]):
					b := Body(ev)
					re, err := ParseRows(ev[4], b, maps[readTableID(b)], nil)
					if err != nil {
						t.Fatal(err)
					}
					fn(ev[4], re)
				}
			}
		}
		r.Close()
	}
}

func toInt64(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case uint64:
		return int64(x)
	case int32:
		return int64(x)
	}
	panic(fmt.Sprintf("unexpected %T", v))
}

// copyDir snapshots the binlog directory as a process crash leaves it:
// written data survives, whatever was not fsynced.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(src)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCrashPointsKeepLogAndStorageInAgreement stops one committer for good
// at each named point of the commit path while others keep committing,
// takes the crash images (storage: a crash clone of its filesystem; log:
// the files as written), recovers, and checks that storage and the log
// hold exactly the same transactions and that every acknowledged commit
// is there.
func TestCrashPointsKeepLogAndStorageInAgreement(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	points := []string{"binlog.afterWrite", "binlog.afterSync", "storage.beforeApply", "storage.afterApply"}
	modes := []rigMode{{pebbleWAL: true}, {}, {memTable: 64 << 10}}
	for round := 0; round < 3; round++ {
		for i, point := range points {
			mode := modes[(round+i)%len(modes)]
			t.Run(fmt.Sprintf("%s/%s/%d", point, mode, round), func(t *testing.T) {
				fs := vfs.NewCrashableMem()
				dir := t.TempDir()
				r := openRigWith(t, fs, filepath.Join(dir, "binlog"), mode)
				r.createTable(t)
				var (
					next   atomic.Int64
					hits   atomic.Int64
					acked  sync.Map
					hold   = make(chan struct{})
					hitCh  = make(chan struct{}, 1)
					stopAt = int64(5 + rng.IntN(40))
				)
				defer close(hold)
				failpoint.Enable(point, func() error {
					if hits.Add(1) == stopAt {
						hitCh <- struct{}{}
						<-hold // this committer "dies" here
					}
					return nil
				})
				defer failpoint.Disable(point)
				var wg sync.WaitGroup
				stop := make(chan struct{})
				for w := 0; w < 4; w++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for {
							select {
							case <-stop:
								return
							default:
							}
							id := next.Add(1)
							if insert(r.store, id) == nil {
								acked.Store(id, true)
							}
						}
					}()
				}
				select {
				case <-hitCh:
				case <-time.After(20 * time.Second):
					t.Fatal("failpoint never hit")
				}
				time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
				// Crash images, taken while the committer is stuck.
				var ackedBefore []int64
				acked.Range(func(k, _ any) bool { ackedBefore = append(ackedBefore, k.(int64)); return true })
				crashedFS := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: rng.IntN(100), RNG: rng})
				copyDir(t, filepath.Join(dir, "binlog"), filepath.Join(dir, "binlog2"))
				close(stop)
				failpoint.Disable(point)

				r2 := openRigWith(t, crashedFS, filepath.Join(dir, "binlog2"), mode)
				defer r2.log.Close()
				got := storageIDs(t, r2.store)
				logged := logIDs(t, r2.log)
				if fmt.Sprint(got) != fmt.Sprint(logged) {
					t.Fatalf("after crash at %s: storage has %d rows, log has %d:\nstorage %v\nlog     %v", point, len(got), len(logged), got, logged)
				}
				have := map[int64]bool{}
				for _, id := range got {
					have[id] = true
				}
				for _, id := range ackedBefore {
					if !have[id] {
						t.Fatalf("after crash at %s: acknowledged id %d lost", point, id)
					}
				}
				// The recovered server goes on committing with dense GTIDs.
				if err := insert(r2.store, 1<<40); err != nil {
					t.Fatal(err)
				}
				ex := r2.log.Executed()
				if ex.Last(testSID) != int64(len(got))+2 {
					t.Fatalf("gtid_executed %s after %d rows + DDL + 1", ex, len(got))
				}
				t.Logf("%s: stopped at commit %d; %d acknowledged before the crash, %d recovered", point, stopAt, len(ackedBefore), len(got))
			})
		}
	}
}
