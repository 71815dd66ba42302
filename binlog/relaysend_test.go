package binlog

import (
	"context"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"

	"petrel/internal/base"
	"petrel/storage"
)

// A replica's log sends its replicated transactions (durable in the relay
// log, committed without an fsync) to its own replicas at once: the
// sendable position follows them past the synced end, so an intermediate
// replica feeds a downstream one without waiting for its next fsync.
func TestRelayDurableCommitsAreSendableBeforeTheFsync(t *testing.T) {
	r := openRig(t, vfs.NewMem(), t.TempDir())
	defer r.log.Close()
	r.createTable(t)
	other, err := base.ParseSID("9e11fa47-71ca-11e1-9e33-c80aa9429599")
	if err != nil {
		t.Fatal(err)
	}
	tb := r.store.Catalog().Table("db", "t")
	synced0 := r.log.SyncedPosition()
	for i := int64(1); i <= 5; i++ {
		txn := r.store.Begin()
		txn.SetOrigin(storage.Origin{GTID: base.GTID{SID: other, GNO: i}, ServerID: 9, RelayDurable: true})
		if err := txn.Insert(context.Background(), tb, sql.Row{i, "replicated"}); err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got, want := r.log.SendablePosition(), r.log.Current(); got != want {
			t.Fatalf("after replicated commit %d: sendable %v, want the written end %v", i, got, want)
		}
	}
	if s := r.log.SyncedPosition(); s != synced0 {
		t.Fatalf("synced moved from %v to %v without a local commit", synced0, s)
	}
	// A local commit fsyncs: everything is durable and sendable.
	if err := insert(r.store, 100); err != nil {
		t.Fatal(err)
	}
	if s, c := r.log.SendablePosition(), r.log.Current(); s != c || r.log.SyncedPosition() != c {
		t.Fatalf("after a local commit: sendable %v, synced %v, written %v", s, r.log.SyncedPosition(), c)
	}
}
