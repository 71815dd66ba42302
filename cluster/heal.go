package cluster

import (
	"context"
	"strconv"
	"strings"
	"time"

	"petrel/internal/mysqlerr"
)

// healRetry is the least time between two restarts of one node's
// replication thread (the disk may still be full).
const healRetry = 5 * time.Second

// healStatement is what to run on a replica whose replication stopped
// on an error that goes away by itself, or "" (pure): a full disk, which
// the applier reports as ER_DISK_FULL and the receiver as a relay log
// write failure (ER_REPLICA_RELAY_LOG_WRITE_FAILURE) saying no space is
// left. Other errors need a person: they are left for SHOW REPLICA STATUS
// to show.
func healStatement(rs map[string]string) string {
	full := func(errno, msg string) bool {
		return errno == strconv.Itoa(mysqlerr.ErDiskFull) ||
			errno == strconv.Itoa(mysqlerr.ErRelayLogWriteFailure) && strings.Contains(msg, "no space left on device")
	}
	switch {
	case rs == nil:
		return ""
	case rs["Replica_SQL_Running"] == "No" && full(rs["Last_SQL_Errno"], rs["Last_SQL_Error"]):
		return "START REPLICA SQL_THREAD"
	case rs["Replica_IO_Running"] == "No" && full(rs["Last_IO_Errno"], rs["Last_IO_Error"]):
		return "START REPLICA IO_THREAD"
	}
	return ""
}

// heal restarts, at most once per healRetry per node, the replication
// thread of every replica or relay that stopped on a transient error.
func (s *supervisor) heal(ctx context.Context) {
	if s.healed == nil {
		s.healed = map[int]time.Time{}
	}
	for i, n := range s.nodes {
		if n.Role == RoleProxy || n.Role == RolePrimary || s.procs[i] == nil || time.Since(s.healed[i]) < healRetry {
			continue
		}
		qctx, cancel := context.WithTimeout(ctx, s.o.Detector.QueryTimeout)
		rs, err := showReplicaStatus(qctx, s.c.get(n.Port))
		stmt := healStatement(rs)
		if err == nil && stmt != "" {
			s.healed[i] = time.Now()
			_, err = s.c.get(n.Port).ExecContext(qctx, stmt)
			s.o.Logger.Warn("cluster: replication stopped on a transient error; restarted", "node", n.Name,
				"sql_errno", rs["Last_SQL_Errno"], "io_errno", rs["Last_IO_Errno"], "statement", stmt, "error", err)
		}
		cancel()
	}
}
