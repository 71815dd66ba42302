package admission

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// TestCoreScenarios replays the scenario files in testdata. Commands:
//
//	options limit=N [kickup=DURATION] [grace=DURATION]   a new core
//	arrive id=N class=in-txn|new   a statement asks for a slot: "run" or "wait"
//	busy id=N                      a holder starts a statement
//	idle id=N                      a holder's statement ended (it keeps its slot): who runs now
//	leave id=N                     a holder's transaction ended: who runs now
//	cancel id=N                    a waiting statement gave up
//	limit N                        the limit changes: who runs now
//	tick DURATION                  time passes: who runs now
//	next                           how long until a Tick may let one run (NextTick), or "none"
//	stats                          the counters
func TestCoreScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var c *Core
		now := time.Unix(1_700_000_000, 0)
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			arg := func(key string) string {
				for _, a := range td.CmdArgs {
					if a.Key == key && len(a.Vals) > 0 {
						return a.Vals[0]
					}
				}
				return ""
			}
			num := func(key string) int {
				n, err := strconv.Atoi(arg(key))
				if err != nil {
					t.Fatalf("%s: bad %s=%q", td.Pos, key, arg(key))
				}
				return n
			}
			if c == nil && td.Cmd != "options" {
				t.Fatalf("%s: options first", td.Pos)
			}
			switch td.Cmd {
			case "options":
				o := Options{Limit: num("limit")}
				for key, dst := range map[string]*time.Duration{"kickup": &o.Kickup, "grace": &o.Grace} {
					if k := arg(key); k != "" {
						d, err := time.ParseDuration(k)
						if err != nil {
							t.Fatal(err)
						}
						*dst = d
					}
				}
				c = NewCore(o)
				return "ok"
			case "arrive":
				class := New
				if arg("class") == "in-txn" {
					class = InTxn
				}
				if c.Arrive(ID(num("id")), class, now) {
					return "run"
				}
				return "wait"
			case "leave":
				return runs(c.Leave(ID(num("id")), now))
			case "idle":
				return runs(c.Idle(ID(num("id")), now))
			case "busy":
				c.Busy(ID(num("id")))
				return "ok"
			case "cancel":
				if c.Cancel(ID(num("id"))) {
					return "cancelled"
				}
				return "not waiting"
			case "limit":
				n, err := strconv.Atoi(td.CmdArgs[0].Key)
				if err != nil {
					t.Fatal(err)
				}
				return runs(c.SetLimit(n, now))
			case "tick":
				d, err := time.ParseDuration(td.CmdArgs[0].Key)
				if err != nil {
					t.Fatal(err)
				}
				now = now.Add(d)
				return runs(c.Tick(now))
			case "next":
				at, ok := c.NextTick(now)
				if !ok {
					return "none"
				}
				return at.Sub(now).String()
			case "stats":
				s := c.Stats(now)
				return fmt.Sprintf("holding=%d idle=%d waiting=%d admitted=%d queued=%d kicked=%d cancelled=%d",
					s.Holding, s.Idle, s.Waiting, s.Admitted, s.Queued, s.Kicked, s.Cancelled)
			}
			t.Fatalf("%s: unknown command %q", td.Pos, td.Cmd)
			return ""
		})
	})
}

func runs(ids []ID) string {
	if len(ids) == 0 {
		return "runs: none"
	}
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatUint(uint64(id), 10)
	}
	return "runs: " + strings.Join(s, " ")
}
