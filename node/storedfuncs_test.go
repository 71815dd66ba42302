package node_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"petrel/node"
)

// TestStoredFunctions: CREATE FUNCTION in its forms (one RETURN, a
// compound body with loops and several RETURNs, a function reading and
// one writing tables), calls in SELECT lists, WHERE clauses and other
// functions, the statements around them (SHOW CREATE FUNCTION, SHOW
// FUNCTION STATUS, DROP FUNCTION) with MySQL's errors, a restart, and a
// function's writes rolled back with its transaction.
func TestStoredFunctions(t *testing.T) {
	opts := restartableOptions(t)
	opts.Variables = map[string]string{"log_bin_trust_function_creators": "0"}
	n, err := node.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	db := rootConn(t, n)
	mustExec(t, db,
		"CREATE DATABASE fdb", "USE fdb",
		"CREATE TABLE fdb.t (id INT PRIMARY KEY, v INT)",
		"INSERT INTO fdb.t VALUES (1, 10), (2, 20), (3, 30), (4, 40)",
		"CREATE TABLE fdb.calls (id INT AUTO_INCREMENT PRIMARY KEY, note VARCHAR(20))",
	)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExecConn(t, conn, "USE fdb",
		"CREATE FUNCTION add2(a INT, b INT) RETURNS INT DETERMINISTIC RETURN a + b",
		`CREATE FUNCTION fact(n INT) RETURNS BIGINT DETERMINISTIC
		BEGIN
		  DECLARE r BIGINT DEFAULT 1;
		  WHILE n > 1 DO
		    SET r = r * n;
		    SET n = n - 1;
		  END WHILE;
		  RETURN r;
		END`,
		`CREATE DEFINER=root@localhost FUNCTION sgn(x INT) RETURNS VARCHAR(10) CHARSET utf8mb4 NO SQL COMMENT 'sign; of x'
		BEGIN
		  IF x < 0 THEN RETURN 'neg';
		  ELSEIF x = 0 THEN RETURN CONCAT('ze', 'ro');
		  END IF;
		  RETURN 'pos';
		END`,
		"CREATE FUNCTION above(x INT) RETURNS INT READS SQL DATA RETURN (SELECT COUNT(*) FROM t WHERE v > x)",
		`CREATE FUNCTION logged(s VARCHAR(20)) RETURNS INT MODIFIES SQL DATA DETERMINISTIC
		BEGIN
		  INSERT INTO calls (note) VALUES (s);
		  RETURN (SELECT COUNT(*) FROM calls);
		END`,
		"CREATE FUNCTION noret(x INT) RETURNS INT DETERMINISTIC BEGIN IF x > 0 THEN RETURN 1; END IF; END",
		"CREATE FUNCTION rec(x INT) RETURNS INT DETERMINISTIC RETURN IF(x > 0, rec(x - 1), 0)",
	)
	check := func(q string, want [][]string) {
		t.Helper()
		rows := callSets(t, conn, q)
		if len(rows) != 1 || !reflect.DeepEqual(rows[0][1:], want) {
			t.Errorf("%s: %v, want %v", q, rows, want)
		}
	}
	check("SELECT add2(2, 3), fact(10), fact(0), sgn(-5), sgn(0), sgn(7), add2(NULL, 1)", [][]string{{"5", "3628800", "1", "neg", "zero", "pos", ""}})
	check("SELECT id, above(v) FROM t WHERE above(v) < 2 ORDER BY id", [][]string{{"3", "1"}, {"4", "0"}})
	check("SELECT add2(fact(3), above(15))", [][]string{{"9"}})
	check("SELECT sgn(add2(-3, 1)), 'x; y'", [][]string{{"neg", "x; y"}})

	// A function's writes are its statement's: rolled back with it.
	mustExecConn(t, conn, "BEGIN")
	check("SELECT logged('a'), logged('b')", [][]string{{"1", "2"}})
	mustExecConn(t, conn, "ROLLBACK")
	check("SELECT COUNT(*) FROM calls", [][]string{{"0"}})
	check("SELECT logged('c')", [][]string{{"1"}})
	check("SELECT note FROM calls", [][]string{{"c"}})

	errNum := func(q string) uint16 {
		t.Helper()
		_, err := conn.ExecContext(ctx, q)
		var me *mysql.MySQLError
		if !errors.As(err, &me) {
			t.Errorf("%s: %v, want a MySQL error", q, err)
			return 0
		}
		return me.Number
	}
	for q, want := range map[string]uint16{
		"CREATE FUNCTION add2(a INT) RETURNS INT DETERMINISTIC RETURN a": 1304,
		"SELECT add2(1)":       1318,
		"SELECT noret(0)":      1321,
		"DROP FUNCTION nosuch": 1305,
		"CREATE FUNCTION nd(a INT) RETURNS INT RETURN a":                              1418, // log_bin on, not trusted
		"CREATE FUNCTION udf RETURNS STRING SONAME 'udf.so'":                          1126,
		"CREATE FUNCTION bad(a INT) RETURNS INT DETERMINISTIC BEGIN RETURN a + ; END": 1064,
		"CREATE FUNCTION nodb.f(a INT) RETURNS INT DETERMINISTIC RETURN a":            1049,
		"SELECT nosuchfn(1)": 1305,
	} {
		if got := errNum(q); got != want {
			t.Errorf("%s: error %d, want %d", q, got, want)
		}
	}
	mustExecConn(t, conn, "CREATE FUNCTION IF NOT EXISTS add2(a INT) RETURNS INT DETERMINISTIC RETURN a", "DROP FUNCTION IF EXISTS nosuch")
	check("SHOW WARNINGS", [][]string{{"Note", "1305", "FUNCTION fdb.nosuch does not exist"}})
	check("SELECT add2(1, 1)", [][]string{{"2"}}) // the first definition stays

	// SHOW CREATE FUNCTION gives the statement as written; SHOW
	// FUNCTION STATUS lists functions, SHOW PROCEDURE STATUS none.
	sets := callSets(t, conn, "SHOW CREATE FUNCTION sgn")
	if len(sets) != 1 || len(sets[0]) != 2 || sets[0][0][2] != "Create Function" || !strings.HasPrefix(sets[0][1][2], "CREATE DEFINER=root@localhost FUNCTION sgn(x INT)") || !strings.HasSuffix(sets[0][1][2], "END") {
		t.Errorf("SHOW CREATE FUNCTION sgn: %v", sets)
	}
	sets = callSets(t, conn, "SHOW FUNCTION STATUS WHERE Db = 'fdb'")
	var names []string
	for _, r := range sets[0][1:] {
		names = append(names, r[1]+"/"+r[2]+"/"+r[7])
	}
	if want := "above/FUNCTION/ add2/FUNCTION/ fact/FUNCTION/ logged/FUNCTION/ noret/FUNCTION/ rec/FUNCTION/ sgn/FUNCTION/sign; of x"; fmt.Sprint(names) != "["+want+"]" {
		t.Errorf("SHOW FUNCTION STATUS: %v, want [%s]", names, want)
	}
	if sets := callSets(t, conn, "SHOW FUNCTION STATUS LIKE 'fa%'"); len(sets[0]) != 2 || sets[0][1][1] != "fact" {
		t.Errorf("SHOW FUNCTION STATUS LIKE 'fa%%': %v", sets)
	}
	if sets := callSets(t, conn, "SHOW PROCEDURE STATUS WHERE Db = 'fdb'"); len(sets) != 1 || len(sets[0]) != 1 {
		t.Errorf("SHOW PROCEDURE STATUS lists %v", sets)
	}
	mustExecConn(t, conn, "DROP FUNCTION noret")
	if got := errNum("SELECT noret(1)"); got != 1305 {
		t.Errorf("noret after DROP FUNCTION: error %d, want 1305", got)
	}
	conn.Close()

	// A restart keeps them.
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	n2, err := node.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer n2.Close()
	db2 := rootConn(t, n2)
	conn2, err := db2.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close()
	mustExecConn(t, conn2, "USE fdb")
	rows := callSets(t, conn2, "SELECT add2(40, 2), fact(5), sgn(-1)")
	if !reflect.DeepEqual(rows[0][1:], [][]string{{"42", "120", "neg"}}) {
		t.Errorf("after a restart: %v", rows)
	}
}
