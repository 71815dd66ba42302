package binlogsql

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"petrel/binlog"
	"petrel/sqlengine"
)

// fakeLog records what configure sets.
type fakeLog struct {
	sync, history, compression int
	tracking                   string
	calls                      []string
}

func (f *fakeLog) SetSyncBinlog(n int) { f.sync = n; f.calls = append(f.calls, "sync") }
func (f *fakeLog) SetDependencyTracking(m string) error {
	f.tracking = m
	f.calls = append(f.calls, "tracking")
	return nil
}
func (f *fakeLog) SetDependencyHistorySize(n int) {
	f.history = n
	f.calls = append(f.calls, "history")
}
func (f *fakeLog) SetReplicaCompression(l int) { f.compression = l }

// TestSettingsPushedToLog: a SET GLOBAL of each dynamic binary log
// setting reaches the log (or the expiry) at once, a setting unchanged
// is not set again, and a value the variable refuses changes nothing.
func TestSettingsPushedToLog(t *testing.T) {
	g := sqlengine.NewGlobals()
	v := Variables(g, true, t.TempDir())
	l := &fakeLog{}
	var expire atomic.Int64
	v.configure(l, &expire)
	if l.sync != 1 || l.tracking != binlog.TrackWriteset || l.history != binlog.DefaultHistorySize || l.compression != 0 || time.Duration(expire.Load()) != 30*24*time.Hour {
		t.Fatalf("defaults pushed: %+v, expire %v", l, time.Duration(expire.Load()))
	}
	ctx := sql.NewEmptyContext()
	set := func(name string, val any) {
		t.Helper()
		if err := g.Set(ctx, name, val); err != nil {
			t.Fatalf("SET GLOBAL %s = %v: %v", name, val, err)
		}
	}
	l.calls = nil
	set("sync_binlog", int64(0))
	set("binlog_transaction_dependency_tracking", "COMMIT_ORDER")
	set("binlog_transaction_dependency_history_size", int64(77))
	set("binlog_transaction_compression_level_zstd", int64(9))
	set("binlog_transaction_compression", int64(1))
	set("binlog_expire_logs_seconds", int64(60))
	if l.sync != 0 || l.tracking != binlog.TrackCommitOrder || l.history != 77 || l.compression != 9 || time.Duration(expire.Load()) != time.Minute {
		t.Errorf("after SET GLOBAL: %+v, expire %v", l, time.Duration(expire.Load()))
	}
	if got := strings.Join(l.calls, ","); got != "sync,tracking,history" {
		t.Errorf("setters called %s, want each once: sync,tracking,history", got)
	}
	if err := g.Set(ctx, "binlog_transaction_dependency_tracking", "NONE"); err == nil {
		t.Error("binlog_transaction_dependency_tracking = NONE accepted")
	}
	if s := v.Settings(); s.DependencyTracking != binlog.TrackCommitOrder || !s.Compression || !v.compressionSet.Load() {
		t.Errorf("settings %+v, compression set %v", s, v.compressionSet.Load())
	}
}

// TestStartupSettings: the option file's values of the settings the log
// reads when it opens.
func TestStartupSettings(t *testing.T) {
	g := sqlengine.NewGlobals()
	v := Variables(g, true, t.TempDir())
	for name, val := range map[string]string{"max_binlog_size": "1048576", "binlog_recovery_truncate_corrupt": "1", "init_rpl_role": "slave"} {
		if err := g.SetFromString(name, val); err != nil {
			t.Fatal(err)
		}
	}
	if s := v.Settings(); s.MaxSize != 1<<20 || !s.TruncateCorrupt || !s.TruncateUnapplied {
		t.Errorf("settings %+v", s)
	}
}
