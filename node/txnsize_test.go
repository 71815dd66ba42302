package node_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestTransactionSizeLimit: a transaction whose pending writes pass
// max_binlog_cache_size gets MySQL's 1197 (ER_TRANS_CACHE_FULL), is
// rolled back whole (no row of it is visible, its earlier statements
// included), and the session and server go on serving; a single
// autocommit statement past it likewise; SET GLOBAL raises the limit at
// once. Without the option the limit is a quarter of petrel_memory_limit.
func TestTransactionSizeLimit(t *testing.T) {
	n, db := startMetricsNode(t, false, map[string]string{"max_binlog_cache_size": "1M"})
	if got := n.Store().MaxTxnSize(); got != 1<<20 {
		t.Fatalf("storage's limit = %d, want %d", got, 1<<20)
	}
	mustExec(t, db, "CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY, pad VARCHAR(1000))",
		"CREATE TABLE d.src (id INT PRIMARY KEY, pad VARCHAR(1000))")
	pad := strings.Repeat("y", 1000)
	// 100 rows, about 100 KB of pending writes.
	rows := func(from int) string {
		var b strings.Builder
		for j := 0; j < 100; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "(%d,'%s')", from+j, pad)
		}
		return b.String()
	}
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	is1197 := func(err error) bool {
		var me *mysql.MySQLError
		return errors.As(err, &me) && me.Number == 1197 && strings.Contains(me.Message, "max_binlog_cache_size")
	}
	fill := func() (ok int, err error) {
		mustConnExec(t, c, "BEGIN")
		for i := 0; i < 30; i++ {
			if _, err := c.ExecContext(ctx, "INSERT INTO d.t VALUES "+rows(i*100)); err != nil {
				return i, err
			}
		}
		return 30, nil
	}
	ok, err := fill()
	if !is1197(err) {
		t.Fatalf("after %d statements: %v, want error 1197", ok, err)
	}
	if ok < 5 {
		t.Errorf("refused after %d statements of 100 KB, under the 1 MiB limit", ok)
	}
	// Rolled back whole: the statements before the failing one too.
	if got := connInt(t, c, "SELECT COUNT(*) FROM d.t"); got != 0 {
		t.Errorf("after 1197: %d rows visible, want 0", got)
	}
	mustConnExec(t, c, "INSERT INTO d.t VALUES (1, 'a')")
	if got := connInt(t, c, "SELECT COUNT(*) FROM d.t"); got != 1 {
		t.Errorf("after 1197 then one insert: %d rows, want 1", got)
	}
	// One autocommit statement past the limit.
	for i := 0; i < 15; i++ {
		mustExec(t, db, "INSERT INTO d.src VALUES "+rows(i*100))
	}
	if _, err := db.Exec("INSERT INTO d.t SELECT id + 10, pad FROM d.src"); !is1197(err) {
		t.Fatalf("INSERT ... SELECT of 1.5 MB: %v, want error 1197", err)
	}
	if got := connInt(t, c, "SELECT COUNT(*) FROM d.t"); got != 1 {
		t.Errorf("after the refused INSERT ... SELECT: %d rows, want 1", got)
	}
	// Raised at once for new writes.
	mustExec(t, db, "SET GLOBAL max_binlog_cache_size = 67108864")
	if got := n.Store().MaxTxnSize(); got != 64<<20 {
		t.Fatalf("after SET GLOBAL: storage's limit = %d, want %d", got, 64<<20)
	}
	mustConnExec(t, c, "USE d", "DELETE FROM t")
	if ok, err := fill(); err != nil || ok != 30 {
		t.Fatalf("with 64 MiB: %d statements, %v", ok, err)
	}
	mustConnExec(t, c, "COMMIT")
	if got := connInt(t, c, "SELECT COUNT(*) FROM d.t"); got != 3000 {
		t.Errorf("with 64 MiB: %d rows, want 3000", got)
	}

	// The default: a quarter of the memory budget.
	n2, db2 := startMetricsNode(t, false, map[string]string{"petrel_memory_limit": "2G"})
	var v uint64
	if err := db2.QueryRow("SELECT @@GLOBAL.max_binlog_cache_size").Scan(&v); err != nil || v != 512<<20 {
		t.Errorf("default max_binlog_cache_size = %d (%v), want %d", v, err, 512<<20)
	}
	if got := n2.Store().MaxTxnSize(); got != 512<<20 {
		t.Errorf("default: storage's limit = %d, want %d", got, 512<<20)
	}
}

// max_binlog_stmt_cache_size has MySQL's default and can be set, and
// bounds nothing: the statement cache holds non-transactional changes,
// and every Petrel table is transactional, so a write larger than it
// commits.
func TestStatementCacheSize(t *testing.T) {
	_, db := startMetricsNode(t, false, nil)
	if got := queryRows(t, db, "SELECT @@GLOBAL.max_binlog_stmt_cache_size"); got[0][0] != "18446744073709547520" {
		t.Fatalf("default %v", got)
	}
	mustExec(t, db, "SET GLOBAL max_binlog_stmt_cache_size = 8192", "CREATE DATABASE sc", "CREATE TABLE sc.t (id INT PRIMARY KEY, pad VARCHAR(1000))")
	if got := queryRows(t, db, "SELECT @@GLOBAL.max_binlog_stmt_cache_size"); got[0][0] != "8192" {
		t.Fatalf("after SET: %v", got)
	}
	var b strings.Builder
	for i := 0; i < 50; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "(%d,'%s')", i, strings.Repeat("z", 1000))
	}
	mustExec(t, db, "INSERT INTO sc.t VALUES "+b.String())
	if got := queryRows(t, db, "SELECT COUNT(*) FROM sc.t"); got[0][0] != "50" {
		t.Fatalf("rows %v, want 50", got)
	}
}
