package replica

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestSchedCore replays the scenario files in testdata/sched against the
// scheduling core. Commands:
//
//	new depth=N            a fresh core
//	arrive [ddl]           the next transaction in relay order
//	finish seq=N           a started transaction finished
//
// Each prints the transactions let start ("start 3 4", or "wait"), then
// the core's counts.
func TestSchedCore(t *testing.T) {
	datadriven.Walk(t, "testdata/sched", func(t *testing.T, path string) {
		var c *schedCore
		var seq uint64
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			var start []uint64
			var err error
			switch td.Cmd {
			case "new":
				depth := 1
				td.MaybeScanArgs(t, "depth", &depth)
				c, seq = newSchedCore(depth), 0
				return "ok"
			case "arrive":
				seq++
				start, err = c.Arrive(schedTxn{Seq: seq, Barrier: td.HasArg("ddl")})
			case "arrive-seq":
				var n uint64
				td.ScanArgs(t, "seq", &n)
				start, err = c.Arrive(schedTxn{Seq: n})
			case "finish":
				var n uint64
				td.ScanArgs(t, "seq", &n)
				start, err = c.Finished(n)
			default:
				t.Fatalf("unknown command %q", td.Cmd)
			}
			if err != nil {
				return "error: " + err.Error()
			}
			var b strings.Builder
			if len(start) == 0 {
				b.WriteString("wait")
			} else {
				b.WriteString("start")
				for _, s := range start {
					fmt.Fprintf(&b, " %d", s)
				}
			}
			fmt.Fprintf(&b, "\nrunning=%d waiting=%d", c.Running(), c.Waiting())
			return b.String()
		})
	})
}
