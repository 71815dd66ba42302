package lab

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// TestWANPolicy runs the impairment core through the scenarios in
// testdata/wan. Commands:
//
//	new seed=N [impairment]    a fresh policy
//	set [impairment]           SetImpairment: the queue and state carry on
//	send n=N every=D [size=B] [print]
//	                           N packets of B bytes (default 1000), D apart,
//	                           from the current time; prints a summary (and
//	                           each packet's fate with print)
//	advance d=D                let time pass
//
// An impairment is any of delay=D jitter=D loss=P burst=(PGoodBad,
// PBadGood, LossBad) reorder=(P,D) rate=R (bits/s, suffix kbit, mbit,
// gbit) queue=BYTES queue-delay=D. With print, times are relative to the
// send's first packet.
func TestWANPolicy(t *testing.T) {
	datadriven.Walk(t, "testdata/wan", func(t *testing.T, path string) {
		var p *wanPolicy
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		now := start
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch td.Cmd {
			case "new", "set":
				imp, seed, err := parseImpairment(td.CmdArgs)
				if err != nil {
					return err.Error()
				}
				imp, err = imp.withDefaults()
				if err != nil {
					return err.Error()
				}
				if td.Cmd == "new" {
					p = newWANPolicy(imp, seed)
				} else {
					p.set(imp)
				}
				return "ok"
			case "advance":
				var d string
				td.ScanArgs(t, "d", &d)
				now = now.Add(mustDuration(t, d))
				return fmt.Sprintf("now %v", now.Sub(start))
			case "send":
				var n int
				var every string
				size := 1000
				td.ScanArgs(t, "n", &n)
				td.ScanArgs(t, "every", &every)
				td.MaybeScanArgs(t, "size", &size)
				gap := mustDuration(t, every)
				var out strings.Builder
				sent := make([]time.Time, n)
				verdicts := make([]wanVerdict, n)
				first := now
				for i := range n {
					sent[i] = now
					verdicts[i] = p.arrive(now, size)
					if td.HasArg("print") {
						v := verdicts[i]
						if v.Drop != wanDelivered {
							fmt.Fprintf(&out, "#%d sent +%v: dropped (%v)\n", i, now.Sub(first), v.Drop)
						} else {
							fmt.Fprintf(&out, "#%d sent +%v: delivered +%v%s\n", i, now.Sub(first), v.At.Sub(first),
								map[bool]string{true: " (reordered)"}[v.Reordered])
						}
					}
					now = now.Add(gap)
				}
				out.WriteString(summarizeWAN(sent, verdicts))
				return out.String()
			}
			t.Fatalf("unknown command %q", td.Cmd)
			return ""
		})
	})
}

// summarizeWAN describes a run of verdicts: counts by fate, order, the
// delay range, the gaps between deliveries and the loss runs.
func summarizeWAN(sent []time.Time, vs []wanVerdict) string {
	var b strings.Builder
	drops := map[wanDrop]int{}
	type delivery struct {
		i  int
		at time.Time
	}
	var ds []delivery
	var minDelay, maxDelay time.Duration = -1, 0
	run, maxRun, runs := 0, 0, 0
	for i, v := range vs {
		drops[v.Drop]++
		if v.Drop != wanDelivered {
			if run == 0 {
				runs++
			}
			run++
			maxRun = max(maxRun, run)
			continue
		}
		run = 0
		ds = append(ds, delivery{i, v.At})
		d := v.At.Sub(sent[i])
		if minDelay < 0 || d < minDelay {
			minDelay = d
		}
		maxDelay = max(maxDelay, d)
	}
	fmt.Fprintf(&b, "delivered %d/%d; dropped: queue=%d loss=%d burst=%d\n",
		drops[wanDelivered], len(vs), drops[wanDropQueue], drops[wanDropLoss], drops[wanDropBurst])
	if len(ds) == 0 {
		return b.String()
	}
	// Overtaken: delivered after a packet sent later.
	sort.SliceStable(ds, func(a, c int) bool { return ds[a].at.Before(ds[c].at) })
	overtaken, maxSeen := 0, -1
	for _, d := range ds {
		if d.i < maxSeen {
			overtaken++
		}
		maxSeen = max(maxSeen, d.i)
	}
	if overtaken == 0 {
		b.WriteString("order kept\n")
	} else {
		fmt.Fprintf(&b, "order: %d overtaken by later packets\n", overtaken)
	}
	fmt.Fprintf(&b, "delay: min %v max %v\n", minDelay, maxDelay)
	if len(ds) > 1 {
		var minGap, maxGap time.Duration = -1, 0
		for k := 1; k < len(ds); k++ {
			g := ds[k].at.Sub(ds[k-1].at)
			if minGap < 0 || g < minGap {
				minGap = g
			}
			maxGap = max(maxGap, g)
		}
		fmt.Fprintf(&b, "gaps: min %v max %v; span %v\n", minGap, maxGap, ds[len(ds)-1].at.Sub(ds[0].at))
	}
	if runs > 0 {
		fmt.Fprintf(&b, "drop runs: %d, longest %d\n", runs, maxRun)
	}
	return b.String()
}

func parseImpairment(args []datadriven.CmdArg) (Impairment, uint64, error) {
	var imp Impairment
	var seed uint64
	var err error
	for _, a := range args {
		val := func(i int) string {
			if i < len(a.Vals) {
				return a.Vals[i]
			}
			return ""
		}
		var e error
		switch a.Key {
		case "seed":
			seed, e = strconv.ParseUint(val(0), 10, 64)
		case "delay":
			imp.Delay, e = time.ParseDuration(val(0))
		case "jitter":
			imp.Jitter, e = time.ParseDuration(val(0))
		case "loss":
			imp.Loss, e = strconv.ParseFloat(val(0), 64)
		case "burst":
			var es [3]error
			imp.Burst.PGoodBad, es[0] = strconv.ParseFloat(val(0), 64)
			imp.Burst.PBadGood, es[1] = strconv.ParseFloat(val(1), 64)
			imp.Burst.LossBad, es[2] = strconv.ParseFloat(val(2), 64)
			e = joinFirst(es[:])
		case "reorder":
			var es [2]error
			imp.Reorder, es[0] = strconv.ParseFloat(val(0), 64)
			imp.ReorderDelay, es[1] = time.ParseDuration(val(1))
			e = joinFirst(es[:])
		case "rate":
			imp.RateBps, e = ParseRate(val(0))
		case "queue":
			imp.QueueBytes, e = strconv.Atoi(val(0))
		case "queue-delay":
			imp.QueueDelay, e = time.ParseDuration(val(0))
		default:
			e = fmt.Errorf("unknown argument %q", a.Key)
		}
		if e != nil && err == nil {
			err = fmt.Errorf("%s: %w", a.Key, e)
		}
	}
	return imp, seed, err
}

func joinFirst(es []error) error {
	for _, e := range es {
		if e != nil {
			return e
		}
	}
	return nil
}

func mustDuration(t *testing.T, s string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestParseRate(t *testing.T) {
	for in, want := range map[string]int64{"20mbit": 20e6, "1.5Mbit": 1.5e6, "64kbit": 64e3, "1gbit": 1e9, "9600": 9600} {
		if got, err := ParseRate(in); err != nil || got != want {
			t.Errorf("ParseRate(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "fast", "-1mbit", "20mb"} {
		if got, err := ParseRate(in); err == nil {
			t.Errorf("ParseRate(%q) = %d, want an error", in, got)
		}
	}
}

// BenchmarkWANPolicy is the core's cost per packet with every fault on.
func BenchmarkWANPolicy(b *testing.B) {
	imp, err := Impairment{Delay: 50 * time.Millisecond, Jitter: time.Millisecond, Loss: 0.02,
		Burst: GilbertElliott{PGoodBad: 0.01, PBadGood: 0.3, LossBad: 0.5}, Reorder: 0.01, RateBps: 1e9}.withDefaults()
	if err != nil {
		b.Fatal(err)
	}
	p := newWANPolicy(imp, 1)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < b.N; i++ {
		now = now.Add(12 * time.Microsecond)
		p.arrive(now, 1500)
	}
}
