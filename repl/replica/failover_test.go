package replica

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"petrel/internal/base"
)

// TestFailoverCore replays the scenario files in testdata/failover
// against the failover policy. Sources are named by host (port 3306).
// Commands:
//
//	new current=P [retry=N] [connect-retry=DUR] [lag=N] [lag-for=DUR]
//	                          a policy connected to nothing yet, on P
//	add name=R [weight=N]     add a source to the list (default weight 50)
//	delete name=R             remove one
//	connected                 the link to the current source streams
//	fail [fatal] [why=...]    an attempt or the link failed
//	observe name=R gtids=1-100 at=DUR
//	                          R's gtid_executed (one origin uuid), read at DUR
//	unobserve name=R          R's probe failed
//	tick at=DUR have=1-50     the lag check; have is the replica's set
//	counts                    the switches made
//
// Decisions print as "retry P:3306 in 1s: reason", "switch to R:3306 in
// 0s: reason", "stay" or "give-up: reason".
func TestFailoverCore(t *testing.T) {
	const uuid = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	datadriven.Walk(t, "testdata/failover", func(t *testing.T, path string) {
		var f *Failover
		var list []FailoverSource
		src := func(td *datadriven.TestData) FailoverSource {
			var name string
			td.ScanArgs(t, "name", &name)
			w := 50
			td.MaybeScanArgs(t, "weight", &w)
			return FailoverSource{Host: name, Port: 3306, Weight: w}
		}
		dur := func(td *datadriven.TestData, key string) time.Duration {
			var s string
			td.ScanArgs(t, key, &s)
			d, err := time.ParseDuration(s)
			if err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			return d
		}
		gtids := func(td *datadriven.TestData, key string) *base.GTIDSet {
			var s string
			td.ScanArgs(t, key, &s)
			set, err := base.ParseGTIDSet(uuid + ":" + s)
			if err != nil {
				t.Fatal(err)
			}
			return set
		}
		show := func(d FailoverDecision) string {
			switch d.Action {
			case Stay:
				return "stay"
			case GiveUp:
				return "give-up: " + d.Reason
			case Retry:
				return fmt.Sprintf("retry %s in %s: %s", d.Target.Addr(), d.Wait, d.Reason)
			}
			return fmt.Sprintf("switch to %s in %s: %s", d.Target.Addr(), d.Wait, d.Reason)
		}
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch td.Cmd {
			case "new":
				var cur string
				td.ScanArgs(t, "current", &cur)
				o := FailoverOptions{RetryCount: 3, ConnectRetry: time.Second, LagFor: 5 * time.Second}
				td.MaybeScanArgs(t, "retry", &o.RetryCount)
				td.MaybeScanArgs(t, "lag", &o.LagTransactions)
				if td.HasArg("connect-retry") {
					o.ConnectRetry = dur(td, "connect-retry")
				}
				if td.HasArg("lag-for") {
					o.LagFor = dur(td, "lag-for")
				}
				list = nil
				f = NewFailover(o, FailoverSource{Host: cur, Port: 3306}, nil)
				return "ok"
			case "add":
				list = append(list, src(td))
				f.SetSources(list)
				return fmt.Sprintf("current %s weight %d", f.Current().Addr(), f.Current().Weight)
			case "delete":
				s := src(td)
				for i := range list {
					if list[i].Addr() == s.Addr() {
						list = append(list[:i:i], list[i+1:]...)
						break
					}
				}
				f.SetSources(list)
				return "ok"
			case "connected":
				f.Connected()
				return "streaming from " + f.Current().Addr()
			case "fail":
				why := "link lost"
				td.MaybeScanArgs(t, "why", &why)
				return show(f.Failed(td.HasArg("fatal"), why))
			case "observe":
				f.Observe(src(td).Addr(), gtids(td, "gtids"), t0.Add(dur(td, "at")))
				return "ok"
			case "unobserve":
				f.Unobserved(src(td).Addr())
				return "ok"
			case "tick":
				return show(f.Tick(t0.Add(dur(td, "at")), gtids(td, "have")))
			case "counts":
				c := f.Counts()
				return fmt.Sprintf("switches=%d lag-switches=%d current=%s", c.Switches, c.LagSwitches, f.Current().Addr())
			}
			t.Fatalf("unknown command %q", td.Cmd)
			return ""
		})
	})
}

// TestFailoverActionNames keeps the log spellings.
func TestFailoverActionNames(t *testing.T) {
	var got []string
	for _, a := range []FailoverAction{Stay, Retry, Switch, GiveUp} {
		got = append(got, a.String())
	}
	if s := strings.Join(got, ","); s != "stay,retry,switch,give-up" {
		t.Fatal(s)
	}
}
