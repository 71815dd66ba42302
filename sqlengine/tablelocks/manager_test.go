package tablelocks

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestScenarios replays the scenario files in testdata. Commands (s=N is
// the session; tables are db.name, a table list is comma-separated):
//
//	lock s=N t=db.t:read[:alias][,db.u:write]...   LOCK TABLES (after its implicit release)
//	flush-lock s=N [t=db.t,...]                    FLUSH TABLES [t...] WITH READ LOCK
//	unlock s=N                                     UNLOCK TABLES
//	begin s=N                                      START TRANSACTION (drops table locks)
//	drop s=N t=db.t                                DROP TABLE by s
//	access s=N [read=db.t[:alias],...] [write=...] [ddl=...]  a statement's tables (ddl: exclusive)
//	give-up s=N                                    a waiting statement stops waiting
//	ddl s=N [routine=true]                         DDL (routine=true: routine or database DDL)
//	read-only s=N                                  SET GLOBAL read_only = ON
//	state                                          every session's locks
//	snapshot                                       the locks held (metadata_locks)
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		m := New()
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			arg := func(key string) string {
				for _, a := range td.CmdArgs {
					if a.Key == key && len(a.Vals) > 0 {
						return strings.Join(a.Vals, ",")
					}
				}
				return ""
			}
			var s SessionID
			if v := arg("s"); v != "" {
				n, err := strconv.Atoi(v)
				if err != nil {
					t.Fatalf("%s: bad s=%q", td.Pos, v)
				}
				s = SessionID(n)
			}
			switch td.Cmd {
			case "lock":
				var reqs []Request
				for _, item := range list(arg("t")) {
					parts := strings.Split(item, ":")
					r := Request{Table: table(parts[0]), Mode: Read}
					if len(parts) > 1 && parts[1] == "write" {
						r.Mode = Write
					}
					if len(parts) > 1 && parts[1] == "implicit-read" {
						r.Implicit = true
					}
					if len(parts) > 2 {
						r.Alias = parts[2]
					}
					reqs = append(reqs, r)
				}
				m.UnlockTables(s)
				return show(m.Lock(s, reqs))
			case "flush-lock":
				if arg("t") == "" {
					return show(m.GlobalReadLock(s))
				}
				var ts []Table
				for _, item := range list(arg("t")) {
					ts = append(ts, table(item))
				}
				return show(m.FlushReadLock(s, ts))
			case "unlock":
				m.Unlock(s)
				return fmt.Sprintf("gen=%d", m.Generation())
			case "begin":
				m.UnlockTables(s)
				return fmt.Sprintf("gen=%d", m.Generation())
			case "drop":
				m.Dropped(s, table(arg("t")))
				return fmt.Sprintf("gen=%d", m.Generation())
			case "access":
				var uses []Use
				for _, kind := range []string{"read", "write", "ddl"} {
					for _, item := range list(arg(kind)) {
						parts := strings.Split(item, ":")
						u := Use{Table: table(parts[0]), Write: kind != "read", Exclusive: kind == "ddl"}
						if len(parts) > 1 {
							u.Alias = parts[1]
						}
						uses = append(uses, u)
					}
				}
				return show(m.Access(s, uses))
			case "read-only":
				return show(m.ReadOnly(s))
			case "give-up":
				m.Waiting(s, "")
				return fmt.Sprintf("gen=%d", m.Generation())
			case "ddl":
				return show(m.DDL(s, arg("routine") == "true"))
			case "state":
				return state(m)
			case "snapshot":
				var b strings.Builder
				for _, h := range m.Snapshot() {
					if h.Global {
						fmt.Fprintf(&b, "s%d global\n", h.Session)
						continue
					}
					fmt.Fprintf(&b, "s%d %s.%s %s\n", h.Session, h.Table.DB, h.Table.Name, h.Mode)
				}
				return strings.TrimSuffix(b.String(), "\n")
			}
			t.Fatalf("%s: unknown command %q", td.Pos, td.Cmd)
			return ""
		})
	})
}

func list(v string) []string {
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

func table(v string) Table {
	db, name, _ := strings.Cut(v, ".")
	return Table{DB: db, Name: name}
}

func show(d Decision) string {
	switch d.Outcome {
	case Wait:
		return fmt.Sprintf("wait for %d", d.Blocker)
	case Refused:
		names := map[Refusal]string{NotLocked: "1100 not locked", NotLockedForWrite: "1099 not locked for write",
			ReadLockHeld: "1223 read lock held", LockedTables: "1192 locked tables"}
		if d.Name != "" {
			return fmt.Sprintf("%s: %s", names[d.Refusal], d.Name)
		}
		return names[d.Refusal]
	}
	return "granted"
}

func state(m *Manager) string {
	var ids []int
	for id := range m.sessions {
		ids = append(ids, int(id))
	}
	sort.Ints(ids)
	var b strings.Builder
	for _, id := range ids {
		h := m.sessions[SessionID(id)]
		fmt.Fprintf(&b, "s%d:", id)
		if h.global {
			b.WriteString(" global")
		}
		if h.locked {
			b.WriteString(" locked")
		}
		for _, e := range h.entries {
			fmt.Fprintf(&b, " %s.%s", e.Table.DB, e.Table.Name)
			if e.Alias != "" {
				fmt.Fprintf(&b, "@%s", e.Alias)
			}
			fmt.Fprintf(&b, "=%s", e.Mode)
			if e.Implicit {
				b.WriteString("(implicit)")
			}
		}
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		return "none"
	}
	return strings.TrimSuffix(b.String(), "\n")
}
