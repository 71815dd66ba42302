package node_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestTextInsertMatchesGMS runs the same text-protocol INSERTs of literal
// values through the text INSERT fast path and through GMS (fast paths
// off) into twin tables (keyless like mysqlslap's, an integer and a
// string primary key, AUTO_INCREMENT, NOT NULL, ENUM, DATETIME,
// UNSIGNED; sql_mode NO_BACKSLASH_ESCAPES and ANSI_QUOTES), and compares
// what clients see (rows affected, last insert id, error codes, warning
// counts) and the resulting rows; at least 8 of the statements took the
// fast path.
func TestTextInsertMatchesGMS(t *testing.T) {
	n, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE ti")
	for _, sfx := range []string{"_f", "_g"} {
		mustExec(t, db,
			"CREATE TABLE ti.slap"+sfx+" (intcol1 INT(32), charcol1 VARCHAR(128))",
			"CREATE TABLE ti.pk"+sfx+" (id INT PRIMARY KEY, u TINYINT UNSIGNED, s VARCHAR(8) NOT NULL, e ENUM('x','y'), dt DATETIME)",
			"CREATE TABLE ti.spk"+sfx+" (name VARCHAR(20) PRIMARY KEY, n BIGINT)",
			"CREATE TABLE ti.ai"+sfx+" (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10))")
	}
	steps := []string{
		"INSERT INTO slap VALUES (1804289383,'mxvtvmC9127qJNm06sGB8R92q2j7vTiiITRDGXM9ZLzkdekbWtmXKwZ2qG1llkRw5m9DHOFilEREk3q7oce8O3BEJC0woJsm6uzFAEynLH2xCsw1KQ1lT4zg9rdxBL')",
		"INSERT INTO slap VALUES (-5, 'with ''quote'' and \\\\ backslash\\n'), (NULL, NULL), (2147483647, '日本語 é')",
		"insert into ti.slap (charcol1, intcol1) values ('swapped', 7);",
		"INSERT INTO slap VALUES (2147483648, 'out of range')",
		"INSERT INTO slap VALUES ('12', 'string into int')",
		"INSERT INTO slap VALUES ('12abc', 'bad string into int')",
		"INSERT INTO slap VALUES (1.5, 'decimal: GMS')",
		"INSERT INTO slap VALUES (1, 'x' ), (2)",
		"INSERT INTO slap (intcol1) VALUES (3)",
		"INSERT INTO slap VALUES (0x10, 'hex: GMS')",
		"INSERT INTO pk VALUES (1, 255, 'abc', 'x', '2026-11-27 10:00:00')",
		"INSERT INTO pk VALUES (2, 256, 'abc', 'x', NULL)",
		"INSERT INTO pk VALUES (3, 1, NULL, 'y', NULL)",
		"INSERT INTO pk VALUES (4, 1, 'too long string', 'y', NULL)",
		"INSERT INTO pk VALUES (5, 1, 'ok', 'z', NULL)",
		"INSERT INTO pk VALUES (6, 1, 'ok', 'y', 'not a date')",
		"INSERT INTO pk VALUES (1, 2, 'dup', 'x', NULL)",
		"INSERT INTO pk VALUES (7, 0, 'a', 'x', NULL), (8, 0, 'b', 'y', NULL), (7, 0, 'dup', 'x', NULL)",
		"INSERT INTO pk VALUES (9, -1, 'neg', 'x', NULL)",
		"INSERT INTO spk VALUES ('alice', 9223372036854775807), ('bob', -9223372036854775808)",
		"INSERT INTO spk VALUES ('ALICE', 1)",
		"INSERT INTO ai VALUES (10, 'explicit')",
		"INSERT INTO ai VALUES (0, 'allocated')",
		"INSERT INTO ai VALUES (NULL, 'allocated')",
		"INSERT INTO ai VALUES (20, 'a'), (21, 'b')",
		"BEGIN",
		"INSERT INTO pk VALUES (100, 1, 'in txn', 'x', NULL)",
		"INSERT INTO pk VALUES (100, 1, 'dup txn', 'x', NULL)",
		"COMMIT",
		"BEGIN",
		"INSERT INTO pk VALUES (101, 1, 'rolled', 'x', NULL)",
		"ROLLBACK",
		// sql_mode changes how literals parse: a backslash is a plain
		// character, then double quotes name columns.
		"SET SESSION sql_mode = CONCAT(@@sql_mode, ',NO_BACKSLASH_ESCAPES')",
		"INSERT INTO slap VALUES (8, 'no\\escape\\n')",
		"SET SESSION sql_mode = 'ANSI_QUOTES'",
		"INSERT INTO slap VALUES (9, \"ansi\")",
		"INSERT INTO slap VALUES (10, 'single')",
		"SET SESSION sql_mode = DEFAULT",
		"INSERT IGNORE INTO pk VALUES (1, 1, 'ignored', 'x', NULL)",
		"INSERT INTO pk VALUES (1, 1, 'odku', 'x', NULL) ON DUPLICATE KEY UPDATE s = 'updated'",
	}
	type outcome struct {
		affected, lastID, warnings int64
		errno                      uint16
	}
	run := func(sfx string) []outcome {
		conn, err := db.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(t.Context(), "USE ti"); err != nil {
			t.Fatal(err)
		}
		var out []outcome
		for _, s := range steps {
			q := s
			for _, tb := range []string{"slap", "pk", "spk", "ai"} {
				q = strings.ReplaceAll(q, "INTO "+tb+" ", "INTO "+tb+sfx+" ")
				q = strings.ReplaceAll(q, "into ti."+tb+" ", "into ti."+tb+sfx+" ")
			}
			var o outcome
			res, err := conn.ExecContext(t.Context(), q)
			if err != nil {
				var me *mysql.MySQLError
				if !errors.As(err, &me) {
					t.Fatalf("%s: %v", q, err)
				}
				o.errno = me.Number
			} else {
				o.affected, _ = res.RowsAffected()
				o.lastID, _ = res.LastInsertId()
			}
			rows, err := conn.QueryContext(t.Context(), "SHOW WARNINGS")
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				o.warnings++
			}
			rows.Close()
			out = append(out, o)
		}
		return out
	}
	n.SQL().SetFastWrites(true)
	before := fastCount(t, db)
	fast := run("_f")
	used := fastCount(t, db) - before
	n.SQL().SetFastWrites(false)
	slow := run("_g")
	n.SQL().SetFastWrites(true)
	for i := range steps {
		if fast[i] != slow[i] {
			t.Errorf("step %d %q: fast path %+v, GMS %+v", i, steps[i], fast[i], slow[i])
		}
	}
	for _, tb := range []string{"slap", "pk", "spk", "ai"} {
		a := queryRows(t, db, "SELECT * FROM ti."+tb+"_f ORDER BY 1, 2")
		b := queryRows(t, db, "SELECT * FROM ti."+tb+"_g ORDER BY 1, 2")
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s rows differ:\nfast %v\nGMS  %v", tb, a, b)
		}
	}
	if got := queryRows(t, db, "SELECT COUNT(*) FROM ti.slap_f"); got[0][0] != "11" {
		t.Errorf("slap_f has %s rows, want 11", got[0][0])
	}
	if used < 8 {
		t.Errorf("only %d statements took the fast path", used)
	}
	t.Logf("%d of %d statements took the fast path", used, len(steps))
}
