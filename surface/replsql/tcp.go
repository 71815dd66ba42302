package replsql

import (
	"log/slog"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/internal/tcptune"
	"petrel/sqlengine"
	"petrel/surface/sysvar"
)

// Keepalives on replication sockets: a peer that vanished without a FIN
// (a host lost, a NAT entry expired) is found within about 25 s of
// silence, on the source's side too, where a dump only writes.
const (
	replKeepAliveIdle     = 10 * time.Second
	replKeepAliveInterval = 5 * time.Second
	replKeepAliveCount    = 3
)

// TCP are the replication sockets' settings, typed: SET GLOBAL
// replication_tcp_congestion_control changes them (surface/sysvar), a
// link takes them when it connects or a dump starts.
type TCP struct{ set *sysvar.Set[tcptune.Options] }

// Options returns the options of a replication socket.
func (t *TCP) Options() tcptune.Options { return t.set.Get() }

// Push configures owner with the options now and after every change.
func (t *TCP) Push(owner func(tcptune.Options)) { t.set.Push(owner) }

// TCPVariables defines replication_tcp_congestion_control: the congestion
// control both ends of a replication link set on their socket. Its values
// are the algorithms this process can use (so SET GLOBAL and the option
// file refuse others with error 1231); its default is BBR where usable,
// else the kernel's default, and the fallback is logged once here.
// Without one, sockets keep the kernel's.
func TCPVariables(g *sqlengine.Globals, log *slog.Logger) *TCP {
	t := &TCP{set: sysvar.New(tcptune.Options{
		KeepAliveIdle: replKeepAliveIdle, KeepAliveInterval: replKeepAliveInterval, KeepAliveCount: replKeepAliveCount,
		NoDelay: true,
	})}
	k, err := tcptune.ReadKernel()
	if err != nil {
		log.Warn("replication sockets keep the kernel's TCP congestion control", "error", err)
		return t
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
		return t
	}
	g.Add([]sql.SystemVariable{
		sysvar.Global(t.set, &sql.MysqlSystemVariable{Name: "replication_tcp_congestion_control", Scope: sql.GetMysqlScope(sql.SystemVariableScope_Global), Dynamic: true,
			Type: types.NewSystemEnumType("replication_tcp_congestion_control", usable...), Default: def},
			func(o *tcptune.Options, x any) error { o.CongestionControl = sysvar.String(x); return nil }),
	}...)
	return t
}
