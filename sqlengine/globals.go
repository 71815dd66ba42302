package sqlengine

import (
	"strings"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/dolthub/go-mysql-server/sql"

	"petrel/sqlengine/arith"
)

// Globals is one server's system variables: the definitions its
// components added (so each change hook is bound to that server's
// owners: its Tracker, its replica, its binary log, its Engine) and the
// global values, set by its option file and by its sessions' SET GLOBAL.
// A variable it does not define (most of GMS's own) takes GMS's
// definition and holds its value here once it is set. Safe for
// concurrent use.
//
// GMS reads and writes global variables through one process-wide
// registry (sql.SystemVariables). Petrel installs one adapter over it
// (registry, below) that answers every call made with a session from
// the session's engine's Globals, and every call GMS makes without one
// from the engine attached last (the one process-wide fallback:
// docs/design/one-server.md lists those calls).
type Globals struct {
	// setMu serialises changes (a hook runs outside mu, so it may read
	// the variables).
	setMu sync.Mutex
	mu    sync.RWMutex
	defs  map[string]sql.SystemVariable // by lower-case name
	vals  map[string]sql.SystemVarValue // values set, by lower-case name
	live  map[string]func() any         // values computed at each read
}

// NewGlobals returns a server's variables before anything is defined:
// GMS's definitions and defaults.
func NewGlobals() *Globals {
	installRegistry()
	return &Globals{defs: map[string]sql.SystemVariable{}, vals: map[string]sql.SystemVarValue{}, live: map[string]func() any{}}
}

// Add defines vars on g, each at its default (a definition added again
// replaces the first and its value). GMS's registry learns the names and
// types too: its planner resolves @@name through it.
func (g *Globals) Add(vars ...sql.SystemVariable) {
	procVars.inner.AddSystemVariables(vars)
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, v := range vars {
		if v == nil {
			continue
		}
		n := strings.ToLower(v.GetName())
		g.defs[n] = v
		g.vals[n] = sql.SystemVarValue{Var: v, Val: v.GetDefault()}
	}
}

// Live makes a global variable read its value from fn at each read
// (gtid_executed and friends change with every commit).
func (g *Globals) Live(name string, fn func() any) {
	g.mu.Lock()
	g.live[strings.ToLower(name)] = fn
	g.mu.Unlock()
}

// lookup is name's definition on g (its own, else GMS's), its value and
// its live reader (nil for none).
func (g *Globals) lookup(name string) (sql.SystemVariable, sql.SystemVarValue, func() any, bool) {
	g.mu.RLock()
	def, own := g.defs[name]
	svv, set := g.vals[name]
	fn := g.live[name]
	g.mu.RUnlock()
	if !own {
		var v any
		var ok bool
		if def, v, ok = procVars.inner.GetGlobal(name); !ok || def == nil {
			return nil, sql.SystemVarValue{}, nil, false
		}
		if !set {
			svv = sql.SystemVarValue{Var: def, Val: v}
		}
	}
	return def, svv, fn, true
}

// Get is a global variable's definition and value; false when it is not
// defined (or hidden).
func (g *Globals) Get(name string) (sql.SystemVariable, any, bool) {
	name = strings.ToLower(varAlias(name))
	if procVars.isHidden(name) {
		return nil, nil, false
	}
	def, svv, fn, ok := g.lookup(name)
	if !ok {
		return nil, nil, false
	}
	if fn != nil {
		return def, fn(), true
	}
	if msv, isMy := def.(*sql.MysqlSystemVariable); isMy && msv.ValueFunction != nil {
		v, err := msv.ValueFunction()
		if err != nil {
			return nil, nil, true
		}
		return def, v, true
	}
	return def, displayValue(def, svv.Val), true
}

// displayValue turns a SET type's bits into its text, as GMS's registry
// answers.
func displayValue(def sql.SystemVariable, v any) any {
	if st, ok := def.GetType().(sql.SetType); ok {
		if bits, ok := v.(uint64); ok {
			if s, err := st.BitsToString(bits); err == nil {
				return s
			}
		}
	}
	return v
}

// Int is an integer (or boolean) global variable, def when it is
// undefined.
func (g *Globals) Int(name string, def int64) int64 {
	if _, v, ok := g.Get(name); ok {
		if n, ok := arith.ToInt64(v); ok {
			return n
		}
	}
	return def
}

// Bool is a boolean global variable (false when undefined).
func (g *Globals) Bool(name string) bool { return g.Int(name, 0) != 0 }

// String is a string global variable, def when undefined or empty.
func (g *Globals) String(name, def string) string {
	if _, v, ok := g.Get(name); ok {
		if s, ok := v.(string); ok && s != "" {
			return s
		}
	}
	return def
}

// Set is SET GLOBAL on g: the value validated by the definition, whose
// hook pushes it to its owner.
func (g *Globals) Set(ctx *sql.Context, name string, val any) error {
	name = strings.ToLower(varAlias(name))
	if procVars.isHidden(name) {
		return sql.ErrUnknownSystemVariable.New(name)
	}
	v, ok, err := charsetValue(name, val)
	if err != nil {
		return err
	}
	if ok {
		val = v
	}
	g.setMu.Lock()
	defer g.setMu.Unlock()
	def, _, _, found := g.lookup(name)
	if !found {
		return sql.ErrUnknownSystemVariable.New(name)
	}
	svv, err := def.SetValue(ctx, val, true)
	if err != nil {
		return err
	}
	g.store(name, svv)
	return nil
}

// assign sets a start-up value (the option file's): read-only variables
// too, as GMS's AssignValues does.
func (g *Globals) assign(name string, val any) error {
	name = strings.ToLower(name)
	if procVars.isHidden(name) {
		return sql.ErrUnknownSystemVariable.New(name)
	}
	g.setMu.Lock()
	defer g.setMu.Unlock()
	def, _, _, found := g.lookup(name)
	if !found {
		return sql.ErrUnknownSystemVariable.New(name)
	}
	svv, err := def.InitValue(sql.NewEmptyContext(), val, true)
	if err != nil {
		return err
	}
	g.store(name, svv)
	return nil
}

func (g *Globals) store(name string, svv sql.SystemVarValue) {
	g.mu.Lock()
	g.vals[name] = svv
	g.mu.Unlock()
}

// all is every global variable's value (SHOW GLOBAL VARIABLES).
func (g *Globals) all() map[string]any {
	m := procVars.inner.GetAllGlobalVariables()
	g.mu.RLock()
	for n, svv := range g.vals {
		m[n] = displayValue(svv.Var, svv.Val)
	}
	fns := make(map[string]func() any, len(g.live))
	for n, fn := range g.live {
		fns[n] = fn
	}
	g.mu.RUnlock()
	for n, fn := range fns {
		if _, ok := m[n]; ok {
			m[n] = fn()
		}
	}
	procVars.dropHidden(m)
	return m
}

// sessionMap is a new session's variables: g's global values.
func (g *Globals) sessionMap() map[string]sql.SystemVarValue {
	m := procVars.inner.NewSessionMap()
	g.mu.RLock()
	for n, svv := range g.vals {
		m[n] = svv
	}
	g.mu.RUnlock()
	procVars.dropHidden(m)
	return m
}

// registry is the one process-wide adapter installed over GMS's
// sql.SystemVariables. A call with a Petrel session (SET GLOBAL) goes to
// the session's engine's Globals; session creation is handed its
// engine's Globals (newBaseSession); a call without either goes to the
// Globals of the engine attached last and still open (before any, a
// process Globals over GMS's defaults).
type registry struct {
	inner sql.SystemVariableRegistry // GMS's: definitions and defaults
	mu    sync.RWMutex
	// attached are the open engines' Globals, oldest first; weak, so an
	// engine a test drops without Close is not kept alive by them.
	attached []weak.Pointer[Globals]
	// hidden are the variables no server shows (hideVariable), replaced
	// whole on change: every read of a variable asks it without a lock.
	hidden  atomic.Pointer[map[string]bool]
	process *Globals
	// creating is the Globals a session being created copies
	// (newBaseSession, under createMu).
	createMu sync.Mutex
	creating atomic.Pointer[Globals]
}

var (
	procVars     *registry
	registryOnce sync.Once
)

// installRegistry puts the adapter over GMS's registry, once per process.
func installRegistry() {
	registryOnce.Do(func() {
		procVars = &registry{inner: sql.SystemVariables}
		procVars.hidden.Store(&map[string]bool{})
		procVars.process = &Globals{defs: map[string]sql.SystemVariable{}, vals: map[string]sql.SystemVarValue{}, live: map[string]func() any{}}
		sql.SystemVariables = procVars
	})
}

// attach makes g the Globals of context-free calls until it is detached.
func (r *registry) attach(g *Globals) {
	r.mu.Lock()
	r.attached = append(r.attached, weak.Make(g))
	r.mu.Unlock()
}

// detach forgets g: the engine attached before it answers again.
func (r *registry) detach(g *Globals) {
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := r.attached[:0]
	for _, a := range r.attached {
		if x := a.Value(); x != nil && x != g {
			kept = append(kept, a)
		}
	}
	clear(r.attached[len(kept):])
	r.attached = kept
}

// fallback is the Globals of a call without a session.
func (r *registry) fallback() *Globals {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for i := len(r.attached) - 1; i >= 0; i-- {
		if g := r.attached[i].Value(); g != nil {
			return g
		}
	}
	return r.process
}

// of is the Globals of ctx's session's engine, else the fallback.
func (r *registry) of(ctx *sql.Context) *Globals {
	if e := engineOf(ctx); e != nil {
		return e.globals
	}
	return r.fallback()
}

func (r *registry) hide(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	next := map[string]bool{strings.ToLower(name): true}
	for k := range *r.hidden.Load() {
		next[k] = true
	}
	r.hidden.Store(&next)
}

func (r *registry) isHidden(name string) bool { return (*r.hidden.Load())[name] }

func (r *registry) dropHidden(m any) {
	for k := range *r.hidden.Load() {
		switch m := m.(type) {
		case map[string]any:
			delete(m, k)
		case map[string]sql.SystemVarValue:
			delete(m, k)
		}
	}
}

// AddSystemVariables: a definition added without an engine (GMS's own)
// is every server's.
func (r *registry) AddSystemVariables(vars []sql.SystemVariable) {
	r.inner.AddSystemVariables(vars)
}

// AssignValues sets start-up values on the fallback's Globals (GMS calls
// it without a session; Petrel's option file goes through
// Globals.SetFromString).
func (r *registry) AssignValues(vals map[string]any) error {
	g := r.fallback()
	for k, v := range vals {
		if err := g.assign(k, v); err != nil {
			return err
		}
	}
	return nil
}

// NewSessionMap copies the Globals of the engine creating the session,
// else the fallback's.
func (r *registry) NewSessionMap() map[string]sql.SystemVarValue {
	if g := r.creating.Load(); g != nil {
		return g.sessionMap()
	}
	return r.fallback().sessionMap()
}

func (r *registry) GetGlobal(name string) (sql.SystemVariable, any, bool) {
	return r.fallback().Get(name)
}

func (r *registry) SetGlobal(ctx *sql.Context, name string, val any) error {
	return r.of(ctx).Set(ctx, name, val)
}

func (r *registry) GetAllGlobalVariables() map[string]any {
	return r.fallback().all()
}

// newBaseSession builds a GMS session whose variables start from e's
// global values: GMS's NewSessionMap takes no argument, so the engine is
// handed over for the call (creations are serialised for it).
func (e *Engine) newBaseSession(addr string, client sql.Client, id uint32) *sql.BaseSession {
	procVars.createMu.Lock()
	defer procVars.createMu.Unlock()
	procVars.creating.Store(e.globals)
	defer procVars.creating.Store(nil)
	return sql.NewBaseSessionWithClientServer(addr, client, id)
}

// hideVariable removes a GMS system variable from what sessions and
// statements can see or set.
func hideVariable(name string) {
	installRegistry()
	procVars.hide(name)
}

// Globals are e's system variables.
func (e *Engine) Globals() *Globals { return e.globals }

// Close detaches e from the process: calls without a session answer from
// the engine opened before it again, and SHOW STATUS without one too.
func (e *Engine) Close() {
	procVars.detach(e.globals)
	detachStatus(e)
}

// globalValueOf is a global variable's value in ctx's server.
func globalValueOf(ctx *sql.Context, name string) (any, error) {
	_, v, ok := procVars.of(ctx).Get(name)
	if !ok {
		return nil, sql.ErrUnknownSystemVariable.New(name)
	}
	return v, nil
}
