package sqlmode

import (
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
)

// Load is sql.LoadSqlMode with the parsed modes kept per sql_mode text.
// GMS's LoadSqlMode splits, sorts and maps the variable's text at every
// call unless the text is GMS's own default, and Petrel's default is
// MySQL 8's: values stored by a bulk INSERT ... SELECT asked for it once
// per value, 5% of the statement's CPU. A *sql.SqlMode is read-only once
// made, so one is shared by every session with that text.
func Load(ctx *sql.Context) *sql.SqlMode {
	if ctx == nil || ctx.Session == nil {
		return sql.LoadSqlMode(ctx)
	}
	v, err := ctx.Session.GetSessionVariable(ctx, sql.SqlModeSessionVar)
	s, ok := v.(string)
	if err != nil || !ok {
		return sql.LoadSqlMode(ctx)
	}
	return parsed(s)
}

// parsedModes holds the modes of each sql_mode text seen, up to
// maxParsedModes texts; past that the map starts over.
var parsedModes struct {
	sync.RWMutex
	m map[string]*sql.SqlMode
}

const maxParsedModes = 64

func parsed(s string) *sql.SqlMode {
	parsedModes.RLock()
	m, ok := parsedModes.m[s]
	parsedModes.RUnlock()
	if ok {
		return m
	}
	m = sql.NewSqlModeFromString(s)
	parsedModes.Lock()
	if parsedModes.m == nil || len(parsedModes.m) >= maxParsedModes {
		parsedModes.m = map[string]*sql.SqlMode{}
	}
	parsedModes.m[s] = m
	parsedModes.Unlock()
	return m
}
