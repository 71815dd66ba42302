package proxy

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"petrel/internal/base"
)

const uuidA = "3e11fa47-71ca-11e1-9e33-c80aa9429562"

// TestRouter replays testdata/router. Commands:
//
//	new [max-lag=D] [recover=N] [stale=D] [wait=D] [replicas=N]
//	    [site=N] [sites=S1,S2,...] [pack=N]
//	                                 a router (replicas r1..rN, in sites
//	                                 S1.., the proxy in site N, packing N
//	                                 sessions a replica), clock at 0
//	add-replica name=NAME [site=N]   a replica discovered (starts unknown)
//	advance D                        the clock moves on; prints Tick's changes
//	check r=N lag=D|null|err=MSG [executed=SET] [writable|read-only] [not-replicating]
//	                                 a check result (r=0 is the primary)
//	promotion                        does the router follow a promotion now?
//	route [s=NAME] kind=K [hint=MODE] [ran=primary]
//	                                 a statement's decision (kind: read, write,
//	                                 begin, end, session-state, other); a read
//	                                 is then recorded where it ran (its
//	                                 backend, or the primary after a wait
//	                                 timed out)
//	session s=NAME [mode=MODE] [txn=on|off]
//	                                 a session's mode, or its backend status
//	wrote s=NAME gtids=SET           the primary's gtid_executed after a write
//	applied r=N gtids=SET            a wait for SET returned on replica N
//	servers                          every backend's status
//	sessions                         the sessions counted on each backend
//	leave s=NAME                     a session ends; prints sessions
//
// SET texts name uuidA as "A".
func TestRouter(t *testing.T) {
	datadriven.Walk(t, "testdata/router", func(t *testing.T, path string) {
		var r *Router
		var now time.Time
		sessions := map[string]*Session{}
		sess := func(td *datadriven.TestData) *Session {
			name := "a"
			td.MaybeScanArgs(t, "s", &name)
			s, ok := sessions[name]
			if !ok {
				s = &Session{}
				sessions[name] = s
			}
			return s
		}
		gtids := func(td *datadriven.TestData, key string) *base.GTIDSet {
			var v string
			td.ScanArgs(t, key, &v)
			set, err := base.ParseGTIDSet(strings.ReplaceAll(v, "A", uuidA))
			if err != nil {
				t.Fatal(err)
			}
			return set
		}
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch td.Cmd {
			case "new":
				var o RouterOptions
				n := 2
				td.MaybeScanArgs(t, "replicas", &n)
				o.MaxLag = durArg(t, td, "max-lag")
				o.StaleAfter = durArg(t, td, "stale")
				o.WaitTimeout = durArg(t, td, "wait")
				td.MaybeScanArgs(t, "recover", &o.RecoverChecks)
				td.MaybeScanArgs(t, "pack", &o.PackSessions)
				var names []string
				for i := 1; i <= n; i++ {
					names = append(names, fmt.Sprintf("r%d", i))
				}
				td.MaybeScanArgs(t, "site", &o.Site)
				r = NewRouter(o, "primary", names)
				var sites string
				if td.MaybeScanArgs(t, "sites", &sites); sites != "" {
					for i, f := range strings.Split(sites, ",") {
						var site int
						if _, err := fmt.Sscan(f, &site); err != nil {
							t.Fatal(err)
						}
						r.SetSite(i+1, site)
					}
				}
				now = time.Unix(0, 0)
				sessions = map[string]*Session{}
				return servers(r, now)
			case "advance":
				d, err := time.ParseDuration(td.CmdArgs[0].Key)
				if err != nil {
					t.Fatal(err)
				}
				now = now.Add(d)
				return changes(r.Tick(now))
			case "check":
				var i int
				td.ScanArgs(t, "r", &i)
				s := Sample{At: now}
				if td.HasArg("err") {
					var msg string
					td.ScanArgs(t, "err", &msg)
					s.Err = errors.New(msg)
				} else {
					var lag string
					td.ScanArgs(t, "lag", &lag)
					if lag != "null" {
						d, err := time.ParseDuration(lag)
						if err != nil {
							t.Fatal(err)
						}
						s.Lag, s.LagKnown = d, true
					}
				}
				if td.HasArg("executed") {
					s.Executed = gtids(td, "executed")
				}
				// A primary answers writable unless told read-only.
				s.Writable = td.HasArg("writable") || (i == Primary && !td.HasArg("read-only"))
				s.Replicating = !td.HasArg("not-replicating")
				c, ok := r.Observe(i, s)
				if !ok {
					return "no change"
				}
				return c.String()
			case "route":
				s := sess(td)
				var kind, hint string
				td.ScanArgs(t, "kind", &kind)
				k, ok := kindByName(kind)
				if !ok {
					t.Fatalf("unknown kind %q", kind)
				}
				var h *Mode
				if td.MaybeScanArgs(t, "hint", &hint); hint != "" {
					m, ok := ParseMode(hint)
					if !ok {
						t.Fatalf("unknown mode %q", hint)
					}
					h = &m
				}
				d := r.Route(s, k, h)
				if d.Pin {
					s.Pinned = true
				}
				if k == KindRead {
					// As the shell does once the read ran (where it ran:
					// "ran=primary" when a wait timed out).
					ran := d.Backend
					if td.HasArg("ran=primary") || td.HasArg("ran") {
						ran = Primary
					}
					r.ReadOn(s, ran)
				}
				return decision(r, d)
			case "session":
				s := sess(td)
				var mode, txn string
				if td.MaybeScanArgs(t, "mode", &mode); mode != "" {
					m, ok := ParseMode(mode)
					if !ok {
						t.Fatalf("unknown mode %q", mode)
					}
					s.Mode = m
				}
				if td.MaybeScanArgs(t, "txn", &txn); txn != "" {
					s.InTxn = txn == "on"
				}
				return fmt.Sprintf("mode=%s pinned=%v txn=%v", s.Mode, s.Pinned, s.InTxn)
			case "wrote":
				s := sess(td)
				s.Wrote(gtids(td, "gtids"))
				return "last write " + strings.ReplaceAll(s.LastWrite.String(), uuidA, "A")
			case "applied":
				var i int
				td.ScanArgs(t, "r", &i)
				r.Applied(i, gtids(td, "gtids"))
				return "ok"
			case "servers":
				return servers(r, now)
			case "leave":
				r.Leave(sess(td))
				return sessionCounts(r)
			case "sessions":
				return sessionCounts(r)
			case "add-replica":
				var name string
				var site int
				td.ScanArgs(t, "name", &name)
				td.MaybeScanArgs(t, "site", &site)
				return fmt.Sprintf("%s is backend %d", name, r.AddReplica(name, site))
			case "promotion":
				c, ok := r.Promotion()
				if !ok {
					return "no promotion"
				}
				return c.String() + "\n" + servers(r, now)
			}
			t.Fatalf("unknown command %q", td.Cmd)
			return ""
		})
	})
}

func durArg(t *testing.T, td *datadriven.TestData, key string) time.Duration {
	var v string
	if td.MaybeScanArgs(t, key, &v); v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func kindByName(s string) (Kind, bool) {
	for i, n := range kindNames {
		if n == s {
			return Kind(i), true
		}
	}
	return 0, false
}

func changes(cs []Change) string {
	if len(cs) == 0 {
		return "no change"
	}
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintln(&b, c)
	}
	return b.String()
}

func decision(r *Router, d Decision) string {
	var b strings.Builder
	b.WriteString(r.backends[d.Backend].Name)
	if d.Dedicated {
		b.WriteString(" dedicated")
	}
	if d.Pin {
		b.WriteString(" pin")
	}
	if d.TrackWrite {
		b.WriteString(" track-write")
	}
	if d.NeedFloor {
		fmt.Fprintf(&b, " need-floor")
	}
	if d.WaitFor != nil {
		fmt.Fprintf(&b, " wait-for=%s", strings.ReplaceAll(d.WaitFor.String(), uuidA, "A"))
	}
	if d.WaitFor != nil || d.NeedFloor {
		fmt.Fprintf(&b, " timeout=%v", d.WaitTimeout)
	}
	fmt.Fprintf(&b, " (%s)", d.Reason)
	return b.String()
}

// sessionCounts prints how many sessions the router counts on each
// backend.
func sessionCounts(r *Router) string {
	var b strings.Builder
	for i, s := range r.Backends() {
		fmt.Fprintf(&b, "%s sessions=%d\n", s.Name, r.Sessions(i))
	}
	return b.String()
}

func servers(r *Router, now time.Time) string {
	var b strings.Builder
	for _, s := range r.Backends() {
		lag := "null"
		if s.LagKnown {
			lag = s.Lag.String()
		}
		fmt.Fprintf(&b, "%s %s lag=%s good=%d", s.Name, s.State, lag, s.Good)
		if s.Site != 0 {
			fmt.Fprintf(&b, " site=%d", s.Site)
		}
		if s.Executed != nil {
			fmt.Fprintf(&b, " executed=%s", strings.ReplaceAll(s.Executed.String(), uuidA, "A"))
		}
		b.WriteString("\n")
	}
	return b.String()
}
