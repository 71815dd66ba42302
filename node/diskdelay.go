package node

import (
	"fmt"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/sqlengine"
	"petrel/storage"
)

// petrel_storage_sync_delay is a lab setting: latency injected before
// every fsync the server makes for commits (Pebble's, through
// storage.Options.SyncDelay, and the binary log's group fsync), so that a
// fast local disk behaves like a networked one (`1ms`). Set in the option
// file (a Go duration: 500us, 1ms); read-only at run time; default 0.
func diskDelayVariables() {
	global := sql.GetMysqlScope(sql.SystemVariableScope_Global)
	sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{
		&sql.MysqlSystemVariable{Name: "petrel_storage_sync_delay", Scope: global, Dynamic: false,
			Type: types.NewSystemStringType("petrel_storage_sync_delay"), Default: "0"},
	})
}

// registerDiskDelayStatus adds Petrel_storage_delayed_syncs: the fsyncs
// petrel_storage_sync_delay slowed (storage's and the binlog's).
func (n *Node) registerDiskDelayStatus() {
	st := n.store
	n.sql.RegisterStatus("Petrel_storage_delayed_syncs", func() any { return st.Stats().DelayedSyncs })
}

// storageSyncDelay parses petrel_storage_sync_delay.
func storageSyncDelay() (time.Duration, error) {
	s := strings.TrimSpace(sqlengine.GlobalString("petrel_storage_sync_delay"))
	if s == "" || s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > storage.MaxInjectedDelay {
		return 0, fmt.Errorf("node: config: petrel_storage_sync_delay must be a duration between 0 and %v (such as 1ms), not %q", storage.MaxInjectedDelay, s)
	}
	return d, nil
}
