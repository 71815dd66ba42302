package semisync

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// TestCoreScenarios replays the scenario files in testdata: each is a
// story of inputs (settings, replicas connecting and leaving, events sent,
// acknowledgements, commits waiting, time passing) and the decisions the
// core must return. Commands:
//
//	settings [enabled=on|off] [timeout=10s] [count=N] [strict=on|off] [no-replica=on|off] [point=AFTER_SYNC|AFTER_COMMIT]
//	add conn=N server=N       a semi-sync replica's dump starts
//	remove conn=N             it ends
//	end pos=P                 the log's durable end (P: offset in binlog.000001, or file:offset)
//	sent conn=N pos=P         a transaction ending at P went out with an ack request
//	ack conn=N pos=P          the replica acknowledged everything up to P
//	wait id=NAME pos=P        a commit ending at P asks to be acknowledged
//	cancel id=NAME            its session was killed
//	tick DURATION             time passes
//	admit                     may a commit be written?
//	status                    the counters
func TestCoreScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		h := newHarness()
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			return h.run(t, td)
		})
	})
}

type harness struct {
	s     Settings
	c     *Core
	now   time.Time
	end   Pos
	ids   map[string]WaiterID
	names map[WaiterID]string
}

func newHarness() *harness {
	s := Settings{Enabled: true, Timeout: 10 * time.Second, WaitPoint: AfterSync, WaitForCount: 1, WaitNoReplica: true}
	return &harness{s: s, c: NewCore(s), now: time.Unix(1_700_000_000, 0), ids: map[string]WaiterID{}, names: map[WaiterID]string{}}
}

func parsePos(t *testing.T, v string) Pos {
	t.Helper()
	file, off := "binlog.000001", v
	if i := strings.LastIndexByte(v, ':'); i >= 0 {
		file, off = v[:i], v[i+1:]
	}
	n, err := strconv.ParseUint(off, 10, 64)
	if err != nil {
		t.Fatalf("bad position %q", v)
	}
	return Pos{File: file, Off: n}
}

func onOff(t *testing.T, v string) bool {
	switch v {
	case "on", "ON", "1":
		return true
	case "off", "OFF", "0":
		return false
	}
	t.Fatalf("want on or off, got %q", v)
	return false
}

func (h *harness) arg(t *testing.T, td *datadriven.TestData, key string) string {
	t.Helper()
	a, ok := td.Arg(key)
	if !ok {
		t.Fatalf("%s: missing %s=", td.Pos, key)
	}
	return a.SingleVal(t)
}

func (h *harness) conn(t *testing.T, td *datadriven.TestData) uint32 {
	n, err := strconv.ParseUint(h.arg(t, td, "conn"), 10, 32)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(n)
}

func (h *harness) run(t *testing.T, td *datadriven.TestData) string {
	switch td.Cmd {
	case "settings":
		for _, a := range td.CmdArgs {
			v := a.SingleVal(t)
			switch a.Key {
			case "enabled":
				h.s.Enabled = onOff(t, v)
			case "timeout":
				d, err := time.ParseDuration(v)
				if err != nil {
					t.Fatal(err)
				}
				h.s.Timeout = d
			case "count":
				n, _ := strconv.Atoi(v)
				h.s.WaitForCount = n
			case "strict":
				h.s.Strict = onOff(t, v)
			case "no-replica":
				h.s.WaitNoReplica = onOff(t, v)
			case "point":
				h.s.WaitPoint = v
			default:
				t.Fatalf("unknown setting %s", a.Key)
			}
		}
		return h.decision(h.c.Configure(h.s, h.now))
	case "add":
		n, _ := strconv.ParseUint(h.arg(t, td, "server"), 10, 32)
		h.c.AddReplica(h.conn(t, td), uint32(n))
		return fmt.Sprintf("clients=%d", h.c.Counters().Clients)
	case "remove":
		d := h.c.RemoveReplica(h.conn(t, td), h.now)
		return h.decision(d) + fmt.Sprintf("\nclients=%d", h.c.Counters().Clients)
	case "end":
		h.end = parsePos(t, h.arg(t, td, "pos"))
		return "ok"
	case "sent":
		h.c.Sent(h.conn(t, td), parsePos(t, h.arg(t, td, "pos")), h.now)
		return "ok"
	case "ack":
		d, err := h.c.Ack(h.conn(t, td), parsePos(t, h.arg(t, td, "pos")), h.end, h.now)
		if err != nil {
			return "error: " + err.Error()
		}
		return h.decision(d)
	case "wait":
		name := h.arg(t, td, "id")
		id := WaiterID(len(h.ids) + 1)
		h.ids[name], h.names[id] = id, name
		out := h.c.Wait(id, parsePos(t, h.arg(t, td, "pos")), h.now)
		if out == Waiting {
			if dl := h.c.Deadline(id); !dl.IsZero() {
				return fmt.Sprintf("%s: waiting (times out in %s)", name, dl.Sub(h.now))
			}
			return name + ": waiting (no timeout)"
		}
		return name + ": " + out.String()
	case "cancel":
		name := h.arg(t, td, "id")
		if h.c.Cancel(h.ids[name], h.now) {
			return name + ": cancelled"
		}
		return name + ": was not waiting"
	case "tick":
		if len(td.CmdArgs) != 1 {
			t.Fatalf("tick DURATION")
		}
		d, err := time.ParseDuration(td.CmdArgs[0].Key)
		if err != nil {
			t.Fatal(err)
		}
		h.now = h.now.Add(d)
		return h.decision(h.c.Tick(h.now))
	case "admit":
		if err := h.c.Admit(); err != nil {
			return "refused: " + err.Error()
		}
		return "ok"
	case "status":
		c := h.c.Counters()
		on := "OFF"
		if c.Status {
			on = "ON"
		}
		return fmt.Sprintf("status=%s clients=%d acked=%s network_durable=%v\nyes_tx=%d no_tx=%d no_times=%d tx_waits=%d wait_sessions=%d tx_wait_time=%s\nnet_waits=%d net_wait_time=%s backtraverse=%d",
			on, c.Clients, h.c.Acked(), h.c.NetworkDurable(), c.YesTx, c.NoTx, c.NoTimes, c.TxWaits, c.WaitSessions, c.TxWaitTime, c.NetWaits, c.NetWaitTime, c.BackTraverse)
	}
	t.Fatalf("%s: unknown command %q", td.Pos, td.Cmd)
	return ""
}

// decision prints what an input released and switched, one line each.
func (h *harness) decision(d Decision) string {
	var lines []string
	if d.SwitchedOff {
		lines = append(lines, "switched OFF (asynchronous)")
	}
	if d.SwitchedOn {
		lines = append(lines, "switched ON")
	}
	for _, r := range d.Released {
		how := "acknowledged"
		if !r.Acked {
			how = "not acknowledged"
		}
		lines = append(lines, fmt.Sprintf("released %s (%s)", h.names[r.ID], how))
	}
	if len(lines) == 0 {
		return "no change"
	}
	return strings.Join(lines, "\n")
}
