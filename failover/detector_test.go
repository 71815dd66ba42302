package failover

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"petrel/internal/base"
)

// TestScenarios replays the scenario files in testdata: stories of
// observations (pings of the primary from observers, replicas' statuses)
// and the decisions the detector returns. Commands:
//
//	init primary=NAME [min-observers=N] [down-for=D] [fresh=D] [max-lag=D]
//	  one member a line: NAME [direct] [relay] [site=N]
//	ping observer=NAME ok|fail at=D          an observer pinged the primary
//	status node=NAME at=D [receiver=connected|connecting|stopped] [applier=on|off]
//	       [errno=N] [executed=SET] [retrieved=SET] [lag=D]
//	decide at=D                               the verdict and, if dead, the choice
//	choose                                    the choice alone, from every status
//
// Times are offsets from the scenario's start. In GTID sets a capital
// letter stands for a server UUID and '+' separates the UUIDs' parts
// (A:1-10+B:1-3).
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var h harness
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			return h.run(t, td)
		})
	})
}

type harness struct {
	d       *Detector
	o       Options
	members []Member
	status  map[string]Status
}

var t0 = time.Unix(1_700_000_000, 0)

func alias(c rune) string { return fmt.Sprintf("%08x-0000-4000-8000-000000000000", c) }

func parseSet(t *testing.T, v string) *base.GTIDSet {
	t.Helper()
	var parts []string
	for _, p := range strings.Split(v, "+") {
		if p == "" {
			continue
		}
		parts = append(parts, alias(rune(p[0]))+p[1:])
	}
	s, err := base.ParseGTIDSet(strings.Join(parts, ","))
	if err != nil {
		t.Fatalf("bad GTID set %q: %v", v, err)
	}
	return s
}

// unalias writes UUIDs back as their letters.
func unalias(s string) string {
	for c := 'A'; c <= 'Z'; c++ {
		s = strings.ReplaceAll(s, alias(c), string(c))
	}
	return s
}

func args(t *testing.T, td *datadriven.TestData) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, a := range td.CmdArgs {
		out[a.Key] = strings.Join(a.Vals, ",")
	}
	return out
}

func dur(t *testing.T, v string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("bad duration %q", v)
	}
	return d
}

func (h *harness) run(t *testing.T, td *datadriven.TestData) string {
	a := args(t, td)
	at := t0
	if v, ok := a["at"]; ok {
		at = t0.Add(dur(t, v))
	}
	switch td.Cmd {
	case "init":
		h.o = Options{}
		if v, ok := a["min-observers"]; ok {
			h.o.MinObservers, _ = strconv.Atoi(v)
		}
		for k, dst := range map[string]*time.Duration{"down-for": &h.o.DownFor, "fresh": &h.o.Fresh, "max-lag": &h.o.MaxLag} {
			if v, ok := a[k]; ok {
				*dst = dur(t, v)
			}
		}
		h.members = nil
		h.status = map[string]Status{}
		for _, line := range strings.Split(strings.TrimSpace(td.Input), "\n") {
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			m := Member{Name: f[0]}
			for _, w := range f[1:] {
				switch {
				case w == "direct":
					m.Direct = true
				case w == "relay":
					m.Relay = true
				case strings.HasPrefix(w, "site="):
					m.Site, _ = strconv.Atoi(strings.TrimPrefix(w, "site="))
				default:
					t.Fatalf("bad member word %q", w)
				}
			}
			h.members = append(h.members, m)
		}
		d, err := New(h.o, a["primary"], h.members)
		if err != nil {
			return err.Error()
		}
		h.d = d
		return ""
	case "ping":
		ok := td.HasArg("ok")
		if !ok && !td.HasArg("fail") {
			t.Fatal("ping needs ok or fail")
		}
		h.d.Ping(a["observer"], ok, at)
		return ""
	case "status":
		st := Status{Receiver: ReceiverConnected, Applier: true}
		switch a["receiver"] {
		case "connecting":
			st.Receiver = ReceiverConnecting
		case "stopped":
			st.Receiver = ReceiverStopped
		}
		st.Applier = a["applier"] != "off"
		if v, ok := a["errno"]; ok {
			st.ApplierErrno, _ = strconv.Atoi(v)
			st.ApplierError = "injected"
		}
		st.Executed = parseSet(t, a["executed"])
		st.Retrieved = parseSet(t, a["retrieved"])
		if v, ok := a["lag"]; ok {
			st.Lag, st.LagKnown = dur(t, v), true
		}
		h.status[a["node"]] = st
		if err := h.d.Observe(a["node"], st, at); err != nil {
			return err.Error()
		}
		return ""
	case "decide":
		dec := h.d.Decide(at)
		out := dec.Verdict.String() + ": " + dec.Why + "\n"
		if dec.Choice != nil {
			out += choice(*dec.Choice)
		}
		return unalias(out)
	case "choose":
		return unalias(choice(Choose(h.o, h.members, h.status)))
	}
	t.Fatalf("unknown command %q", td.Cmd)
	return ""
}

func choice(c Choice) string {
	var b strings.Builder
	if c.Promote != "" {
		fmt.Fprintf(&b, "promote %s: %s\n", c.Promote, c.Why)
	} else {
		fmt.Fprintf(&b, "none: %s\n", c.Why)
	}
	for _, n := range c.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, u := range c.CatchUp {
		fmt.Fprintf(&b, "catch up from %s: %s\n", u.Node, u.Set)
	}
	return b.String()
}
