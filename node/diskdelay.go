package node

import (
	"fmt"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/storage"
	"petrel/surface/sysvar"
)

// petrel_storage_sync_delay is a lab setting: latency injected before
// every fsync the server makes for commits (Pebble's, through
// storage.Options.SyncDelay, and the binary log's group fsync), so that a
// fast local disk behaves like a networked one (`1ms`). Set in the option
// file (a Go duration: 500us, 1ms); read-only at run time; default 0.
func (n *Node) diskDelayVariables() {
	global := sql.GetMysqlScope(sql.SystemVariableScope_Global)
	n.globals.Add([]sql.SystemVariable{
		sysvar.Global(n.set, &sql.MysqlSystemVariable{Name: "petrel_storage_sync_delay", Scope: global, Dynamic: false,
			Type: types.NewSystemStringType("petrel_storage_sync_delay"), Default: "0"},
			func(s *settings, v any) (err error) { s.SyncDelay, err = parseSyncDelay(sysvar.String(v)); return err }),
	}...)
}

// registerDiskDelayStatus adds Petrel_storage_delayed_syncs: the fsyncs
// petrel_storage_sync_delay slowed (storage's and the binlog's).
func (n *Node) registerDiskDelayStatus() {
	st := n.store
	n.sql.RegisterStatus("Petrel_storage_delayed_syncs", func() any { return st.Stats().DelayedSyncs })
}

// parseSyncDelay parses a petrel_storage_sync_delay.
func parseSyncDelay(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > storage.MaxInjectedDelay {
		return 0, fmt.Errorf("petrel_storage_sync_delay must be a duration between 0 and %v (such as 1ms), not %q", storage.MaxInjectedDelay, s)
	}
	return d, nil
}
