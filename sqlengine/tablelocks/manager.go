// Package tablelocks decides LOCK TABLES, UNLOCK TABLES and FLUSH TABLES
// ... WITH READ LOCK the MySQL 8 way, as a pure core: sessions' requests
// in, decisions out (granted, wait for a session, or refused with the
// error MySQL gives). It holds no goroutine, clock or channel; the caller
// (sqlengine/locktables.go) serialises the calls, waits while a decision
// says Wait (its context's deadline is lock_wait_timeout, KILL cancels
// it) and asks again when any lock is released (Manager.Generation).
//
// The rules, from MySQL 8's "LOCK TABLES and UNLOCK TABLES Statements":
//   - A session holding table locks (locked-tables mode) may use only the
//     tables it locked, under the names it locked them (a table locked
//     AS a is used as a; locked by name, by its name): others give
//     ER_TABLE_NOT_LOCKED (1100); writing one it READ-locked gives
//     ER_TABLE_NOT_LOCKED_FOR_WRITE (1099). It never waits: nobody else
//     holds a conflicting lock on its tables.
//   - Another session's write of a table someone READ- or WRITE-locked
//     waits, and so does its read of a WRITE-locked one.
//   - A READ lock waits for other sessions' WRITE locks, a WRITE lock for
//     any other session's lock of the table or global read lock.
//   - The global read lock (FLUSH TABLES WITH READ LOCK) waits for other
//     sessions' WRITE locks; while it is held other sessions' writes wait,
//     and its holder's own writes are refused with
//     ER_CANT_UPDATE_WITH_READLOCK (1223).
//
// Manager is not safe for concurrent use.
package tablelocks

import (
	"slices"
	"strings"
)

// SessionID names a session (its connection id).
type SessionID uint32

// Mode is a table lock's kind.
type Mode uint8

const (
	// Read lets every session read the table and none write it.
	Read Mode = iota + 1
	// Write lets its holder read and write the table, and nobody else
	// use it.
	Write
)

func (m Mode) String() string {
	if m == Write {
		return "WRITE"
	}
	return "READ"
}

// Table is a base table (or view) by database and name, compared without
// regard to case.
type Table struct{ DB, Name string }

func (t Table) key() Table { return Table{strings.ToLower(t.DB), strings.ToLower(t.Name)} }

// Request is one table of a LOCK TABLES statement: the table, the alias
// it is locked under ("" for its own name) and the lock's mode. Implicit
// requests are the tables a locked view reads (prelocking): locked, and
// usable by the holder under any name.
type Request struct {
	Table    Table
	Alias    string
	Mode     Mode
	Implicit bool
}

// Use is one table a statement uses: under which alias ("" for its own
// name), and whether it writes it.
type Use struct {
	Table Table
	Alias string
	Write bool
	// Exclusive marks DDL and FLUSH TABLES: while one waits, other
	// sessions' new reads of its tables wait behind it (MySQL's pending
	// exclusive metadata lock goes first).
	Exclusive bool
}

// Outcome is what a decision says.
type Outcome uint8

const (
	// Granted: go on.
	Granted Outcome = iota
	// Wait: Blocker holds a conflicting lock; ask again after a release.
	Wait
	// Refused: fail with Refusal.
	Refused
)

// Refusal is the error a refused request gets.
type Refusal uint8

const (
	_ Refusal = iota
	// NotLocked is ER_TABLE_NOT_LOCKED (1100).
	NotLocked
	// NotLockedForWrite is ER_TABLE_NOT_LOCKED_FOR_WRITE (1099).
	NotLockedForWrite
	// ReadLockHeld is ER_CANT_UPDATE_WITH_READLOCK (1223).
	ReadLockHeld
	// LockedTables is ER_LOCK_OR_ACTIVE_TRANSACTION (1192).
	LockedTables
)

// Decision is the answer to a request. Name is the table (or alias) an
// error names, Blocker the session a wait is for.
type Decision struct {
	Outcome Outcome
	Refusal Refusal
	Name    string
	Blocker SessionID
}

func granted() Decision { return Decision{} }

func refuse(r Refusal, name string) Decision {
	return Decision{Outcome: Refused, Refusal: r, Name: name}
}

func wait(on SessionID) Decision { return Decision{Outcome: Wait, Blocker: on} }

// holder is one session's locks.
type holder struct {
	// locked: the session is in locked-tables mode (LOCK TABLES or FLUSH
	// TABLES t WITH READ LOCK), even once DROP TABLE emptied entries.
	locked  bool
	entries []Request
	// global: it holds the global read lock.
	global bool
}

// Manager is the table locks of one server.
type Manager struct {
	sessions map[SessionID]*holder
	// gen counts releases: a waiter asks again when it moved.
	gen uint64
	// waiting is what each waiting session waits for (PROCESSLIST's state).
	waiting map[SessionID]string
	// pending are the tables of each waiting exclusive use.
	pending map[SessionID][]Table
}

// New returns a Manager holding no lock.
func New() *Manager {
	return &Manager{sessions: map[SessionID]*holder{}, waiting: map[SessionID]string{}, pending: map[SessionID][]Table{}}
}

// Generation moves each time a lock is released or a session stops
// waiting: a waiting session asks again then.
func (m *Manager) Generation() uint64 { return m.gen }

// Active reports whether any session holds any lock or waits for an
// exclusive use: while none does, statements need no check (the fast
// paths' test).
func (m *Manager) Active() bool { return len(m.sessions) > 0 || len(m.pending) > 0 }

// InLockedTables reports whether s is in locked-tables mode.
func (m *Manager) InLockedTables(s SessionID) bool {
	h := m.sessions[s]
	return h != nil && h.locked
}

// HoldsGlobal reports whether s holds the global read lock.
func (m *Manager) HoldsGlobal(s SessionID) bool {
	h := m.sessions[s]
	return h != nil && h.global
}

// Locked is s's locks, in the order it asked for them.
func (m *Manager) Locked(s SessionID) []Request {
	if h := m.sessions[s]; h != nil {
		return append([]Request(nil), h.entries...)
	}
	return nil
}

// Lock is LOCK TABLES reqs by s, after Unlock (a LOCK TABLES first
// releases the session's table locks). Granted: s holds them all; Wait:
// nothing is held, ask again later.
func (m *Manager) Lock(s SessionID, reqs []Request) Decision {
	if h := m.sessions[s]; h != nil && h.global {
		for _, r := range reqs {
			if r.Mode == Write {
				return refuse(ReadLockHeld, "")
			}
		}
	}
	for _, r := range reqs {
		if d := m.conflict(s, r.Table, r.Mode == Write); d.Outcome != Granted {
			return d
		}
	}
	h := m.holder(s)
	h.locked = true
	h.entries = append(h.entries[:0], reqs...)
	return granted()
}

// FlushReadLock is FLUSH TABLES tables WITH READ LOCK by s: READ locks
// on them, s in locked-tables mode. Refused while s already holds
// table locks (1192).
func (m *Manager) FlushReadLock(s SessionID, tables []Table) Decision {
	if m.InLockedTables(s) {
		return refuse(LockedTables, "")
	}
	reqs := make([]Request, len(tables))
	for i, t := range tables {
		reqs[i] = Request{Table: t, Mode: Read}
	}
	return m.Lock(s, reqs)
}

// GlobalReadLock is FLUSH TABLES WITH READ LOCK by s. Refused in
// locked-tables mode (1192); waits for other sessions' WRITE locks.
func (m *Manager) GlobalReadLock(s SessionID) Decision {
	if m.InLockedTables(s) {
		return refuse(LockedTables, "")
	}
	for _, id := range m.ids() {
		if id == s {
			continue
		}
		for _, e := range m.sessions[id].entries {
			if e.Mode == Write {
				return wait(id)
			}
		}
	}
	m.holder(s).global = true
	return granted()
}

// ReadOnly is SET GLOBAL read_only = ON by s, which MySQL runs under the
// global read lock, taken and let go: refused in locked-tables mode
// (1192), it waits for other sessions' WRITE locks.
func (m *Manager) ReadOnly(s SessionID) Decision {
	if m.InLockedTables(s) {
		return refuse(LockedTables, "")
	}
	for _, id := range m.ids() {
		if id == s {
			continue
		}
		for _, e := range m.sessions[id].entries {
			if e.Mode == Write {
				return wait(id)
			}
		}
	}
	return granted()
}

// Unlock is UNLOCK TABLES by s: its table locks and its global read
// lock go.
func (m *Manager) Unlock(s SessionID) {
	if m.sessions[s] == nil {
		return
	}
	delete(m.sessions, s)
	m.gen++
}

// UnlockTables drops s's table locks (a LOCK TABLES' implicit release, a
// START TRANSACTION) and keeps its global read lock.
func (m *Manager) UnlockTables(s SessionID) {
	h := m.sessions[s]
	if h == nil || !h.locked {
		return
	}
	h.locked, h.entries = false, nil
	if !h.global {
		delete(m.sessions, s)
	}
	m.gen++
}

// Dropped is DROP TABLE t by s: s's locks on it go; with the last of them
// the session leaves locked-tables mode.
func (m *Manager) Dropped(s SessionID, t Table) {
	h := m.sessions[s]
	if h == nil {
		return
	}
	k := t.key()
	kept := h.entries[:0]
	for _, e := range h.entries {
		if e.Table.key() != k {
			kept = append(kept, e)
		}
	}
	if len(kept) != len(h.entries) {
		m.gen++
	}
	h.entries = kept
	if len(kept) == 0 {
		// MySQL unlocks when the last locked table is dropped.
		m.UnlockTables(s)
	}
}

// Access decides whether s may run a statement using uses. A session in
// locked-tables mode is checked against its own locks (never waits);
// another waits while someone's lock conflicts.
func (m *Manager) Access(s SessionID, uses []Use) Decision {
	h := m.sessions[s]
	if h != nil && h.global {
		for _, u := range uses {
			if u.Write {
				return refuse(ReadLockHeld, "")
			}
		}
	}
	if h != nil && h.locked {
		for _, u := range uses {
			if d := h.covers(u); d.Outcome != Granted {
				return d
			}
		}
		return granted()
	}
	for _, u := range uses {
		if d := m.conflict(s, u.Table, u.Write); d.Outcome != Granted {
			if _, ok := m.pending[s]; !ok {
				for _, x := range uses {
					if x.Exclusive {
						m.pending[s] = append(m.pending[s], x.Table.key())
					}
				}
			}
			return d
		}
	}
	m.notPending(s)
	return granted()
}

// notPending: s no longer waits for an exclusive use.
func (m *Manager) notPending(s SessionID) {
	if _, ok := m.pending[s]; ok {
		delete(m.pending, s)
		m.gen++
	}
}

// DDL decides a DDL statement of s: refused while s holds the global
// read lock (1223), and, when lockedMode says MySQL refuses it under LOCK
// TABLES (routine and database DDL), in locked-tables mode (1192); it
// waits while another session holds the global read lock. Its tables are
// checked as writes apart (Access).
func (m *Manager) DDL(s SessionID, lockedMode bool) Decision {
	if m.HoldsGlobal(s) {
		return refuse(ReadLockHeld, "")
	}
	if lockedMode && m.InLockedTables(s) {
		return refuse(LockedTables, "")
	}
	for _, id := range m.ids() {
		if id != s && m.sessions[id].global {
			return wait(id)
		}
	}
	return granted()
}

// Waiting records that s waits (state as PROCESSLIST shows it), or with
// state "" that it stopped waiting.
func (m *Manager) Waiting(s SessionID, state string) {
	if state == "" {
		delete(m.waiting, s)
		m.notPending(s)
		return
	}
	m.waiting[s] = state
}

// WaitState is what s waits for, "" if it does not wait.
func (m *Manager) WaitState(s SessionID) string { return m.waiting[s] }

// Held is one lock a session holds: a table's (Table set, Mode its
// strongest) or the global read lock (Global).
type Held struct {
	Session SessionID
	Global  bool
	Table   Table
	Mode    Mode
}

// Snapshot lists the locks held, by session and then in the order taken;
// a table locked under several names once, in its strongest mode
// (performance_schema.metadata_locks).
func (m *Manager) Snapshot() []Held {
	var out []Held
	for _, id := range m.ids() {
		h := m.sessions[id]
		if h.global {
			out = append(out, Held{Session: id, Global: true})
		}
		at := map[Table]int{}
		for _, e := range h.entries {
			k := e.Table.key()
			if i, ok := at[k]; ok {
				out[i].Mode = max(out[i].Mode, e.Mode)
				continue
			}
			at[k] = len(out)
			out = append(out, Held{Session: id, Table: e.Table, Mode: e.Mode})
		}
	}
	return out
}

// Holders lists who locks t: sessions and modes (SHOW OPEN TABLES'
// In_use, performance_schema.metadata_locks).
func (m *Manager) Holders(t Table) map[SessionID]Mode {
	k := t.key()
	out := map[SessionID]Mode{}
	for id, h := range m.sessions {
		for _, e := range h.entries {
			if e.Table.key() == k && e.Mode > out[id] {
				out[id] = e.Mode
			}
		}
	}
	return out
}

// ids are the sessions holding locks, in order: the blocker a decision
// names does not depend on map order.
func (m *Manager) ids() []SessionID {
	out := make([]SessionID, 0, len(m.sessions))
	for id := range m.sessions {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

func (m *Manager) holder(s SessionID) *holder {
	h := m.sessions[s]
	if h == nil {
		h = &holder{}
		m.sessions[s] = h
	}
	return h
}

// conflict finds another session's lock that a use of t by s, or its
// lock request (the same rule), must wait for.
func (m *Manager) conflict(s SessionID, t Table, write bool) Decision {
	k := t.key()
	for _, id := range m.ids() {
		h := m.sessions[id]
		if id == s {
			continue
		}
		if write && h.global {
			return wait(id)
		}
		for _, e := range h.entries {
			if e.Table.key() == k && (write || e.Mode == Write) {
				return wait(id)
			}
		}
	}
	if !write {
		for id, ts := range m.pending {
			if id != s && slices.Contains(ts, k) {
				return wait(id)
			}
		}
	}
	return granted()
}

// covers checks a use against the session's own locks.
func (h *holder) covers(u Use) Decision {
	k := u.Table.key()
	name := u.Table.Name
	if u.Alias != "" {
		name = u.Alias
	}
	found := false
	for _, e := range h.entries {
		// A view's tables count as locked under any name: the plan may
		// show the view's tables in its place (MySQL allows them through
		// the view only).
		if e.Table.key() != k || (!e.Implicit && !strings.EqualFold(e.Alias, u.Alias)) {
			continue
		}
		if e.Mode == Write || !u.Write {
			return granted()
		}
		found = true
	}
	if found {
		return refuse(NotLockedForWrite, name)
	}
	return refuse(NotLocked, name)
}
