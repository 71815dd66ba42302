package fastpath

import (
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
)

// privCache remembers that a fast-path plan's privileges were verified
// for one account at one grants generation, so a plan executed again
// skips the check until the grants change: REVOKE applies to the next
// execution, as in MySQL. Safe for concurrent use.
type privCache struct {
	mu   sync.Mutex
	user string
	gen  uint64
}

// allowed reports whether the session's account holds privs on db.table.
// The grants generation is the counter GMS stores with the session's
// cached privilege set, which UserActivePrivilegeSet refreshes whenever an
// account statement changed the grants (one atomic load when nothing did).
func (c *privCache) allowed(ctx *sql.Context, udb *mysql_db.MySQLDb, db, table string, privs ...sql.PrivilegeType) bool {
	if !udb.Enabled() {
		return true
	}
	udb.UserActivePrivilegeSet(ctx)
	_, gen := ctx.Session.GetPrivilegeSet()
	client := ctx.Session.Client()
	user := client.User + "@" + client.Address
	c.mu.Lock()
	checked := c.user == user && c.gen == gen
	c.mu.Unlock()
	if checked {
		return true
	}
	if !udb.UserHasPrivileges(ctx, sql.NewPrivilegedOperation(sql.PrivilegeCheckSubject{Database: db, Table: table}, privs...)) {
		return false
	}
	c.mu.Lock()
	c.user, c.gen = user, gen
	c.mu.Unlock()
	return true
}
