package replica

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestSchedCore replays the scenario files in testdata/sched against the
// scheduling core. Commands:
//
//	new [policy=serial|logical|database] [depth=N] [workers=N] [preserve=on|off] [history=N]
//	arrive [ddl] [executed] [lc=N sn=N] [db=a,b] [ws=7,9] [nokeys]
//	                       the next transaction in relay order
//	applied seq=N          a started transaction applied its rows
//	committed seq=N        it passed its commit point
//	finish seq=N           its commit is durable (serial: it finished)
//	fail seq=N             it failed
//	rotate                 the source started a new binlog file
//	waits                  the wait counters
//
// Each prints the transactions let start ("start 3/w1 4/w2": transaction
// 3 on worker 1; serial: "start 3") and let commit ("commit 3"), or
// "wait", then the core's counts.
func TestSchedCore(t *testing.T) {
	datadriven.Walk(t, "testdata/sched", func(t *testing.T, path string) {
		var c *schedCore
		var seq uint64
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			var d schedDecision
			var err error
			var n uint64
			if td.HasArg("seq") {
				td.ScanArgs(t, "seq", &n)
			}
			switch td.Cmd {
			case "new":
				o := schedOptions{Depth: 1, Workers: 1, PreserveOrder: true}
				pol, pre := "serial", "on"
				td.MaybeScanArgs(t, "policy", &pol)
				td.MaybeScanArgs(t, "depth", &o.Depth)
				td.MaybeScanArgs(t, "workers", &o.Workers)
				td.MaybeScanArgs(t, "preserve", &pre)
				td.MaybeScanArgs(t, "history", &o.HistorySize)
				o.PreserveOrder = pre == "on"
				switch pol {
				case "serial":
				case "logical":
					o.Policy = policyLogicalClock
				case "database":
					o.Policy = policyDatabase
				default:
					t.Fatalf("unknown policy %q", pol)
				}
				c, seq = newSchedCore(o), 0
				return "ok"
			case "arrive":
				seq++
				tx := schedTxn{Seq: seq, Barrier: td.HasArg("ddl"), Executed: td.HasArg("executed"), NoKeys: td.HasArg("nokeys")}
				td.MaybeScanArgs(t, "lc", &tx.LastCommitted)
				td.MaybeScanArgs(t, "sn", &tx.SeqNo)
				if td.HasArg("db") {
					var dbs string
					td.ScanArgs(t, "db", &dbs)
					tx.DBs = strings.Split(dbs, ",")
				}
				if td.HasArg("ws") {
					var ws string
					td.ScanArgs(t, "ws", &ws)
					tx.Writeset = []uint64{}
					for _, f := range strings.Split(ws, ",") {
						if f == "" {
							continue
						}
						h, err := strconv.ParseUint(f, 10, 64)
						if err != nil {
							t.Fatal(err)
						}
						tx.Writeset = append(tx.Writeset, h)
					}
				}
				d, err = c.Arrive(tx)
			case "arrive-seq":
				d, err = c.Arrive(schedTxn{Seq: n})
			case "applied":
				d, err = c.Applied(n)
			case "committed":
				d, err = c.Committed(n)
			case "finish":
				d, err = c.Finished(n)
			case "fail":
				c.Failed(n)
			case "rotate":
				c.Rotate()
				return "ok"
			case "waits":
				w := c.Waits()
				return fmt.Sprintf("dependency=%d barrier=%d workers=%d commit-order=%d serialised=%d by-writeset=%d",
					w.Dependency, w.Barrier, w.Workers, w.CommitOrder, w.Serialised, w.ByWriteset)
			default:
				t.Fatalf("unknown command %q", td.Cmd)
			}
			if err != nil {
				return "error: " + err.Error()
			}
			var b strings.Builder
			if len(d.Start) > 0 {
				b.WriteString("start")
				for _, s := range d.Start {
					if c.opts.Policy == policySerial {
						fmt.Fprintf(&b, " %d", s.Seq)
					} else {
						fmt.Fprintf(&b, " %d/w%d", s.Seq, s.Worker)
					}
				}
			}
			if len(d.Commit) > 0 {
				if b.Len() > 0 {
					b.WriteString("\n")
				}
				b.WriteString("commit")
				for _, s := range d.Commit {
					fmt.Fprintf(&b, " %d", s)
				}
			}
			if b.Len() == 0 {
				b.WriteString("wait")
			}
			fmt.Fprintf(&b, "\nrunning=%d waiting=%d", c.Running(), c.Waiting())
			return b.String()
		})
	})
}
