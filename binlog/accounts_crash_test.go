package binlog

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"petrel/internal/failpoint"
)

// An account statement commits the users blob (storage metadata) and its
// statement event in one transaction, flushed to storage in its turn like
// DDL. A crash at any point of that commit leaves both or neither: before
// the flush, recovery cuts the unapplied statement from the log and
// storage keeps the old blob; after it, both survive.
func TestAccountCommitCrashPoints(t *testing.T) {
	const stmt = "CREATE USER 'u'@'%' IDENTIFIED WITH 'mysql_native_password' AS '*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19'"
	oldBlob, newBlob := []byte("accounts-v1"), []byte("accounts-v2")
	for _, point := range []string{"binlog.afterWrite", "binlog.afterSync", "storage.beforeApply", "storage.afterApply", ""} {
		name := point
		if name == "" {
			name = "acknowledged"
		}
		t.Run(name, func(t *testing.T) {
			fs := vfs.NewCrashableMem()
			dir := t.TempDir()
			r := openRig(t, fs, filepath.Join(dir, "binlog"))
			r.createTable(t)
			if err := r.store.SetMetaSync("mysql_db", oldBlob); err != nil {
				t.Fatal(err)
			}
			for i := int64(1); i <= 20; i++ {
				if err := insert(r.store, i); err != nil {
					t.Fatal(err)
				}
			}
			hit, hold := make(chan struct{}), make(chan struct{})
			defer close(hold)
			if point != "" {
				failpoint.Enable(point, func() error {
					close(hit)
					<-hold // the committer "dies" here
					return nil
				})
				defer failpoint.Disable(point)
			}
			done := make(chan error, 1)
			go func() {
				txn := r.store.Begin()
				if err := txn.PutMeta("mysql_db", newBlob); err != nil {
					done <- err
					return
				}
				txn.LogQuery("", stmt)
				done <- txn.Commit(context.Background())
			}()
			if point != "" {
				select {
				case <-hit:
				case <-time.After(20 * time.Second):
					t.Fatal("failpoint never hit")
				}
			} else if err := <-done; err != nil {
				t.Fatal(err)
			}
			crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
			copyDir(t, filepath.Join(dir, "binlog"), filepath.Join(dir, "binlog2"))
			failpoint.Disable(point)

			r2 := openRig(t, crashed, filepath.Join(dir, "binlog2"))
			defer r2.log.Close()
			blob, err := r2.store.GetMeta("mysql_db")
			if err != nil {
				t.Fatal(err)
			}
			// The account statement is GTID 22 (CREATE TABLE, 20 inserts).
			logged := r2.log.Executed().Last(testSID) >= 22
			events := fmt.Sprint(logQueries(t, r2.log))
			switch {
			case bytes.Equal(blob, newBlob) && logged && bytes.Contains([]byte(events), []byte(stmt)):
				if point != "storage.afterApply" && point != "" {
					t.Fatalf("crash at %s (before storage applied it): the account change survived", point)
				}
			case bytes.Equal(blob, oldBlob) && !logged:
				if point == "storage.afterApply" || point == "" {
					t.Fatalf("crash at %s (after storage made it durable): the account change was lost", name)
				}
			default:
				t.Fatalf("crash at %s: storage holds %q, log executed %s (statement logged: %v): they disagree", name, blob, r2.log.Executed(), logged)
			}
			if n := len(storageIDs(t, r2.store)); n != 20 {
				t.Fatalf("crash at %s: %d rows recovered, want 20", name, n)
			}
		})
	}
}

// logQueries lists the statements (QUERY events other than BEGIN) in the
// log's files.
func logQueries(t *testing.T, l *Log) []string {
	t.Helper()
	var out []string
	for _, f := range l.Files() {
		p, _ := l.Path(f.Name)
		rd, err := OpenReader(p)
		if err != nil {
			t.Fatal(err)
		}
		for {
			ev, _, err := rd.Next()
			if err != nil {
				break
			}
			if ev[4] == QueryEvent {
				if q, err := ParseQuery(Body(ev)); err == nil && q.Query != "BEGIN" {
					out = append(out, q.Query)
				}
			}
		}
		rd.Close()
	}
	return out
}
