package e2e

import (
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// TestSQLPrepare checks SQL-level prepared statements (PREPARE ... FROM
// a literal or a user variable, EXECUTE ... USING user variables,
// DEALLOCATE PREPARE) through the mariadb CLI, which reads PREPARE's OK
// packet and its "Statement prepared" info (a 2027 malformed packet
// before), and through go-sql-driver, with MySQL's errors: 1243 for an
// unknown statement, 1210 for a wrong USING count, 1064 for a statement
// that does not parse.
func TestSQLPrepare(t *testing.T) {
	requireTool(t, "mariadb", "/usr/bin/mariadb")
	ctx := testContext(t, 2*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	mustExec(t, ctx, rootDB(t, p, ""), "CREATE DATABASE ps", "CREATE TABLE ps.t (id INT PRIMARY KEY, s VARCHAR(20))")

	t.Run("mariadb CLI", func(t *testing.T) {
		out, err := lab.RunMariaDBClient(ctx, p.Port(), "root", rootPassword, "ps",
			"SET @a = 1, @b = 'one'; PREPARE ins FROM 'INSERT INTO t VALUES (?, ?)'; EXECUTE ins USING @a, @b; "+
				"SET @a = 2, @b = 'two'; EXECUTE ins USING @a, @b; DEALLOCATE PREPARE ins; "+
				"SET @q = 'SELECT GROUP_CONCAT(s ORDER BY id) FROM t WHERE id >= ?'; PREPARE sel FROM @q; "+
				"SET @min = 1; EXECUTE sel USING @min; SET @min = 2; EXECUTE sel USING @min; DROP PREPARE sel")
		if err != nil {
			t.Fatalf("PREPARE/EXECUTE/DEALLOCATE: %v", err)
		}
		if want := "one,two\ntwo\n"; out != want {
			t.Errorf("output %q, want %q", out, want)
		}
		// -v prints each statement's info: PREPARE's is MySQL's text.
		out, err = lab.RunMariaDBClient(ctx, p.Port(), "root", rootPassword, "ps", "PREPARE x FROM 'SELECT 1'", "-vvv")
		if err != nil || !strings.Contains(out, "Statement prepared") {
			t.Errorf("PREPARE with -vvv: %v\n%s\nwant the info \"Statement prepared\"", err, out)
		}
		for _, c := range []struct{ sql, want string }{
			{"EXECUTE nosuch", "ERROR 1243 (HY000)"},
			{"DEALLOCATE PREPARE nosuch", "ERROR 1243 (HY000)"},
			{"PREPARE s FROM 'SELECT ?'; SET @a = 1, @b = 2; EXECUTE s USING @a, @b", "ERROR 1210 (HY000)"},
			{"PREPARE s FROM 'SELECT ?'; EXECUTE s", "ERROR 1210 (HY000)"},
			{"PREPARE s FROM 'SELEC 1'", "ERROR 1064 (42000)"},
			{"PREPARE s FROM 'SELECT 1'; DEALLOCATE PREPARE s; EXECUTE s", "ERROR 1243 (HY000)"},
		} {
			_, err := lab.RunMariaDBClient(ctx, p.Port(), "root", rootPassword, "ps", c.sql)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v, want %s", c.sql, err, c.want)
			}
		}
	})

	t.Run("go-sql-driver", func(t *testing.T) {
		c := conn(t, ctx, rootDB(t, p, "ps"))
		mustExec(t, ctx, c, "SET @id = 3, @s = 'three'",
			"PREPARE ins FROM 'INSERT INTO t VALUES (?, ?)'",
			"EXECUTE ins USING @id, @s",
			"SET @id = 4", "EXECUTE ins USING @id, @s")
		_, err := c.ExecContext(ctx, "EXECUTE ins USING @id, @s")
		wantErrNo(t, "EXECUTE of a duplicate key", err, erDupEntry)
		mustExec(t, ctx, c, "DEALLOCATE PREPARE ins", "PREPARE cnt FROM 'SELECT COUNT(*) FROM t WHERE s = ?'", "SET @s = 'three'")
		if n := queryInt(t, ctx, c, "EXECUTE cnt USING @s"); n != 2 {
			t.Errorf("EXECUTE cnt USING @s: %d, want 2", n)
		}
		_, err = c.ExecContext(ctx, "EXECUTE ins USING @id, @s")
		wantErrNo(t, "EXECUTE of a deallocated statement", err, 1243)
		_, err = c.ExecContext(ctx, "EXECUTE cnt USING @s, @s")
		wantErrNo(t, "EXECUTE with two variables for one placeholder", err, 1210)
		_, err = c.ExecContext(ctx, "PREPARE bad FROM 'INSERT INTO t VALUES (?, ?'")
		wantErrNo(t, "PREPARE of a statement that does not parse", err, erParse)
		if got := queryString(t, ctx, c, "SELECT GROUP_CONCAT(id ORDER BY id) FROM t"); got != "1,2,3,4" {
			t.Errorf("ids %q, want 1,2,3,4", got)
		}
	})
}
