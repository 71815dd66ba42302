package replsql

import (
	"log/slog"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/internal/tcptune"
	"petrel/sqlengine"
)

// Keepalives on replication sockets: a peer that vanished without a FIN
// (a host lost, a NAT entry expired) is found within about 25 s of
// silence, on the source's side too, where a dump only writes.
const (
	replKeepAliveIdle     = 10 * time.Second
	replKeepAliveInterval = 5 * time.Second
	replKeepAliveCount    = 3
)

// TCPVariables defines replication_tcp_congestion_control: the congestion
// control both ends of a replication link set on their socket. Its values
// are the algorithms this process can use (so SET GLOBAL and the option
// file refuse others with error 1231); its default is BBR where usable,
// else the kernel's default, and the fallback is logged once here.
func TCPVariables(log *slog.Logger) {
	k, err := tcptune.ReadKernel()
	if err != nil {
		log.Warn("replication sockets keep the kernel's TCP congestion control", "error", err)
		return
	}
	def, why := k.DefaultCongestionControl()
	if why != nil {
		log.Warn(why.Error())
	}
	var usable []string
	for _, a := range k.Available {
		if k.Usable(a) {
			usable = append(usable, a)
		}
	}
	if len(usable) == 0 || def == "" {
		return
	}
	sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{
		&sql.MysqlSystemVariable{Name: "replication_tcp_congestion_control", Scope: sql.GetMysqlScope(sql.SystemVariableScope_Global), Dynamic: true,
			Type: types.NewSystemEnumType("replication_tcp_congestion_control", usable...), Default: def},
	})
}

// TCPOptions returns the options of a replication socket, read when a link
// connects or a dump starts.
func TCPOptions() tcptune.Options {
	return tcptune.Options{
		CongestionControl: sqlengine.GlobalString("replication_tcp_congestion_control"),
		KeepAliveIdle:     replKeepAliveIdle, KeepAliveInterval: replKeepAliveInterval, KeepAliveCount: replKeepAliveCount,
		NoDelay: true,
	}
}
