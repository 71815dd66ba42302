package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
)

// RegisterFunction adds a SQL function, or replaces go-mysql-server's
// built-in of the same name (the provider is asked before the built-ins).
func (e *Engine) RegisterFunction(f sql.Function) {
	e.prov.fnMu.Lock()
	defer e.prov.fnMu.Unlock()
	if e.prov.fns == nil {
		e.prov.fns = map[string]sql.Function{}
	}
	e.prov.fns[strings.ToLower(f.FunctionName())] = f
}

var _ sql.FunctionProvider = (*Provider)(nil)

// Function implements sql.FunctionProvider: the functions the stages
// registered.
func (p *Provider) Function(ctx *sql.Context, name string) (sql.Function, bool) {
	p.fnMu.RLock()
	f, ok := p.fns[strings.ToLower(name)]
	p.fnMu.RUnlock()
	if ok {
		return f, ok
	}
	return p.storedFunction(ctx, name) // storedfuncs.go
}

// HasGlobalPrivilege reports whether the session's user holds the global
// privilege static or any of the dynamic ones (SUPER holds every dynamic
// privilege), as functions that check their caller need it. With the
// grant tables off everyone may.
func (e *Engine) HasGlobalPrivilege(ctx *sql.Context, static sql.PrivilegeType, dynamic ...string) bool {
	udb := e.gms.Analyzer.Catalog.MySQLDb
	if !udb.Enabled() {
		return true
	}
	if udb.UserHasPrivileges(ctx, sql.NewPrivilegedOperation(sql.PrivilegeCheckSubject{}, static)) {
		return true
	}
	for _, d := range dynamic {
		if udb.UserHasPrivileges(ctx, sql.NewDynamicPrivilegedOperation(d)) {
			return true
		}
	}
	return false
}
