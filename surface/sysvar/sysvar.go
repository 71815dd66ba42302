// Package sysvar holds a component's settings as one typed struct behind
// its system variables, and pushes every change to the component that
// uses them (pebble's SetOptions, etcd's Reconfigure). A variable's
// change hook (SET GLOBAL, or the option file as it is applied) converts
// and validates the new value into the struct, refusing a bad one with
// the hook's error; each owner is then configured with the whole struct.
// Nothing reads a setting by name, or re-parses it, where it is used.
//
// A node's surfaces define their variables, and so a new Set, each time
// the node opens, on that node's variables (sqlengine.Globals): a hook
// is bound to the Set of the server that defined it, so two servers in
// one process push to their own owners.
package sysvar

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
)

// Set is the current settings S and the owners they are pushed to. Safe
// for concurrent use; Get takes no lock (a reader on a hot path, or an
// owner of one Set reading another, never waits on an update).
type Set[S any] struct {
	mu     sync.Mutex // serialises updates and pushes
	cur    atomic.Pointer[S]
	owners []func(S)
}

// New returns a Set holding def until a variable changes it.
func New[S any](def S) *Set[S] {
	s := &Set[S]{}
	s.cur.Store(&def)
	return s
}

// Get returns the current settings.
func (s *Set[S]) Get() S { return *s.cur.Load() }

// Update applies change to a copy of the settings; if it returns no
// error, the copy becomes current and is pushed to every owner, in the
// order of the updates. An owner must neither block nor call back into s
// (hooks run under GMS's registry lock).
func (s *Set[S]) Update(change func(*S) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := *s.cur.Load()
	if err := change(&next); err != nil {
		return err
	}
	s.cur.Store(&next)
	for _, o := range s.owners {
		o(next)
	}
	return nil
}

// Push configures owner with the current settings now and with the new
// ones after every Update.
func (s *Set[S]) Push(owner func(S)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.owners = append(s.owners, owner)
	owner(*s.cur.Load())
}

// Field makes one setting of s a variable's: apply stores a value (def at
// once, then each one set) into the settings, and the returned hook,
// given each new value, refuses it with apply's error. For registries
// that take such a check (sqlengine.Globals.CheckedAlias); Global is
// the same for one GMS variable.
func (s *Set[S]) Field(def any, apply func(*S, any) error) func(any) error {
	if err := s.Update(func(c *S) error { return apply(c, def) }); err != nil {
		panic(fmt.Sprintf("sysvar: a default (%v) refused: %v", def, err))
	}
	return func(v any) error { return s.Update(func(c *S) error { return apply(c, v) }) }
}

// Global makes v's global value a field of s: apply stores a value (its
// default at once, then each one set) into the settings, and its error
// refuses a SET GLOBAL or an option file's value with the variable left
// as it was. A session's value (a variable of both scopes) does not
// change s. It returns v, to be added to the registry.
func Global[S any](s *Set[S], v *sql.MysqlSystemVariable, apply func(*S, any) error) *sql.MysqlSystemVariable {
	set := s.Field(v.Default, apply)
	v.NotifyChanged = func(_ *sql.Context, scope sql.SystemVariableScope, val sql.SystemVarValue) error {
		if !scope.IsGlobalOnly() {
			return nil
		}
		return set(val.Val)
	}
	return v
}

// Int is an integer (or boolean) variable's value as GMS holds it (its
// type's Go integer, or the default as written).
func Int(v any) int64 {
	switch n := v.(type) {
	case int8:
		return int64(n)
	case int16:
		return int64(n)
	case int32:
		return int64(n)
	case int64:
		return n
	case int:
		return int64(n)
	case uint8:
		return int64(n)
	case uint16:
		return int64(n)
	case uint32:
		return int64(n)
	case uint64:
		return int64(min(n, math.MaxInt64))
	}
	return 0
}

// Uint is an unsigned variable's value (MySQL's largest, 2^64-1024, too).
func Uint(v any) uint64 {
	if u, ok := v.(uint64); ok {
		return u
	}
	return uint64(max(Int(v), 0))
}

// Bool is a boolean variable's value (GMS holds ON as 1).
func Bool(v any) bool { return Int(v) != 0 }

// String is a string or enumeration variable's value.
func String(v any) string {
	s, _ := v.(string)
	return s
}
