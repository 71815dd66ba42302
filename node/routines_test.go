package node_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/node"
)

// callSets reads every result set of q on one connection: each set's
// rows, the columns' names first, as text.
func callSets(t *testing.T, conn *sql.Conn, q string, args ...any) [][][]string {
	t.Helper()
	rows, err := conn.QueryContext(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out [][][]string
	for {
		cols, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		set := [][]string{cols}
		for rows.Next() {
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			row := make([]string, len(cols))
			for i, v := range vals {
				row[i] = v.String
			}
			set = append(set, row)
		}
		if len(cols) > 0 {
			out = append(out, set)
		}
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

// Stored procedures (issue 31): kept across a restart, listed where
// MySQL lists them, and a CALL answers with every SELECT's result set in
// order, over the text protocol and the binary one, for a client that
// did not ask for multiple statements (go-sql-driver's default) as for
// one that did; then the connection goes on with the next statement.
func TestStoredProcedures(t *testing.T) {
	dir := t.TempDir() + "/d"
	opts := node.Options{Datadir: dir, Port: 0, RootPassword: "pw", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard}
	n, err := node.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	connect := func(n *node.Node, multi bool) *sql.DB {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = "root", "pw", "tcp", n.Addr(), "d"
		cfg.MultiStatements = multi
		cfg.AllowNativePasswords = true
		d, err := sql.Open("mysql", cfg.FormatDSN())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", "pw", "tcp", n.Addr()
	root, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, root, "CREATE DATABASE d")
	root.Close()
	db := connect(n, false)
	mustExec(t, db,
		"CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(10))",
		"INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')",
		`CREATE PROCEDURE two_sets(IN x INT)
		 BEGIN
		   SELECT a FROM t WHERE a >= x ORDER BY a;
		   INSERT INTO t VALUES (x + 10, 'added');
		   SELECT b, a FROM t WHERE a > 10 ORDER BY a;
		 END`,
		"CREATE PROCEDURE no_set() BEGIN UPDATE t SET b = 'upd' WHERE a = 1; END",
	)
	err = func() error { _, err := db.Exec("CREATE PROCEDURE no_set() SELECT 1"); return err }()
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1304 {
		t.Fatalf("CREATE of an existing procedure: %v, want 1304", err)
	}
	err = func() error { _, err := db.Exec("DROP PROCEDURE nope"); return err }()
	if !errors.As(err, &me) || me.Number != 1305 {
		t.Fatalf("DROP of a missing procedure: %v, want 1305", err)
	}

	want := [][][]string{
		{{"a"}, {"2"}, {"3"}},
		{{"b", "a"}, {"added", "12"}},
	}
	for _, multi := range []bool{false, true} {
		conn, err := connect(n, multi).Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		mustExecConn(t, conn, "DELETE FROM t WHERE a > 10")
		if got := callSets(t, conn, "CALL two_sets(2)"); !reflect.DeepEqual(got, want) {
			t.Fatalf("multi=%v: CALL two_sets(2) = %v, want %v", multi, got, want)
		}
		// The connection is in step: the next statement's answer is its own.
		if got := callSets(t, conn, "SELECT COUNT(*) FROM t"); !reflect.DeepEqual(got, [][][]string{{{"COUNT(*)"}, {"4"}}}) {
			t.Fatalf("multi=%v: after the CALL: %v", multi, got)
		}
		// Binary protocol: a prepared CALL.
		mustExecConn(t, conn, "DELETE FROM t WHERE a > 10")
		if got := callSets(t, conn, "CALL two_sets(?)", 2); !reflect.DeepEqual(got, want) {
			t.Fatalf("multi=%v: prepared CALL two_sets(?) = %v, want %v", multi, got, want)
		}
		if got := callSets(t, conn, "SELECT COUNT(*) FROM t"); !reflect.DeepEqual(got, [][][]string{{{"COUNT(*)"}, {"4"}}}) {
			t.Fatalf("multi=%v: after the prepared CALL: %v", multi, got)
		}
		if _, err := conn.ExecContext(context.Background(), "CALL no_set()"); err != nil {
			t.Fatalf("multi=%v: CALL no_set(): %v", multi, err)
		}
		conn.Close()
	}
	if multi := connect(n, true); true {
		conn, err := multi.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		mustExecConn(t, conn, "DELETE FROM t WHERE a > 10")
		got := callSets(t, conn, "SELECT 'before'; CALL two_sets(3); SELECT 'after'")
		wantMulti := [][][]string{{{"before"}, {"before"}}, {{"a"}, {"3"}}, {{"b", "a"}, {"added", "13"}}, {{"after"}, {"after"}}}
		if !reflect.DeepEqual(got, wantMulti) {
			t.Fatalf("CALL among other statements = %v, want %v", got, wantMulti)
		}
		conn.Close()
	}

	// Every kind of value goes out as a SELECT of the same expressions
	// sends it, in both protocols (the binary one has a form per type).
	const exprs = "CAST('2024-02-03 04:05:06.5' AS DATETIME(1)) AS dt, CAST('-25:01:02' AS TIME) AS tm, " +
		"DATE('2024-02-03') AS da, 1.5e0 AS d, CAST(2.25 AS DECIMAL(5,2)) AS de, NULL AS n, CAST(-7 AS SIGNED) AS i, 'x' AS s"
	mustExec(t, db, "CREATE PROCEDURE typed(IN k INT) SELECT "+exprs+", k")
	conn, err := connect(n, false).Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]any{nil, {5}} {
		call, sel := "CALL typed(5)", "SELECT "+exprs+", 5 AS k"
		if args != nil {
			call, sel = "CALL typed(?)", "SELECT "+exprs+", CAST(? AS SIGNED) AS k"
		}
		got, want := callSets(t, conn, call, args...), callSets(t, conn, sel, args...)
		if len(got) != 1 || len(want) != 1 || !reflect.DeepEqual(got[0][1:], want[0][1:]) {
			t.Fatalf("%s = %v, want the rows of %s: %v", call, got, sel, want)
		}
	}
	conn.Close()

	listed := func(db *sql.DB) []string {
		var names []string
		rows, err := db.Query("SELECT ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'd' AND ROUTINE_TYPE = 'PROCEDURE' ORDER BY ROUTINE_NAME")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			names = append(names, s)
		}
		var count int
		if err := db.QueryRow("SELECT COUNT(*) FROM (SHOW PROCEDURE STATUS WHERE Db = 'd') s").Scan(&count); err == nil && count != len(names) {
			t.Fatalf("SHOW PROCEDURE STATUS lists %d, ROUTINES %d", count, len(names))
		}
		return names
	}
	if got := listed(db); !reflect.DeepEqual(got, []string{"no_set", "two_sets", "typed"}) {
		t.Fatalf("information_schema.ROUTINES: %v", got)
	}

	// A restart keeps them.
	db.Close()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	n, err = node.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	db = connect(n, false)
	if got := listed(db); !reflect.DeepEqual(got, []string{"no_set", "two_sets", "typed"}) {
		t.Fatalf("after a restart: %v", got)
	}
	conn, err = db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExecConn(t, conn, "DELETE FROM t WHERE a > 10")
	if got := callSets(t, conn, "CALL two_sets(2)"); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a restart: CALL two_sets(2) = %v, want %v", got, want)
	}
	mustExecConn(t, conn, "DROP PROCEDURE two_sets")
	if _, err := conn.ExecContext(context.Background(), "CALL two_sets(1)"); !errors.As(err, &me) || me.Number != 1305 {
		t.Fatalf("CALL of a dropped procedure: %v, want 1305", err)
	}
}

func mustExecConn(t *testing.T, conn *sql.Conn, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// Scheduled events (issue 31): kept across a restart and listed; no
// scheduler runs them, and the server says so: event_scheduler is
// DISABLED and turning it on is 1290; 1537 / 1539 for an existing or
// missing event.
func TestEvents(t *testing.T) {
	opts := restartableOptions(t)
	n, err := node.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	connect := func(n *node.Node) *sql.DB { return rootConn(t, n) }
	db := connect(n)
	mustExec(t, db, "CREATE DATABASE ev", "CREATE TABLE ev.t (a INT PRIMARY KEY)",
		"CREATE EVENT ev.tick ON SCHEDULE EVERY 1 SECOND DO INSERT INTO ev.t SELECT COALESCE(MAX(a), 0) + 1 FROM ev.t",
		"CREATE EVENT ev.once ON SCHEDULE AT '2037-01-01 00:00:00' DO DELETE FROM ev.t")
	var me *mysql.MySQLError
	if _, err := db.Exec("CREATE EVENT ev.tick ON SCHEDULE EVERY 1 DAY DO DELETE FROM ev.t"); !errors.As(err, &me) || me.Number != 1537 {
		t.Fatalf("CREATE of an existing event: %v, want 1537", err)
	}
	if _, err := db.Exec("DROP EVENT ev.nope"); !errors.As(err, &me) || me.Number != 1539 {
		t.Fatalf("DROP of a missing event: %v, want 1539", err)
	}
	var sched string
	if err := db.QueryRow("SELECT @@GLOBAL.event_scheduler").Scan(&sched); err != nil || sched != "DISABLED" {
		t.Fatalf("event_scheduler = %q, %v; want DISABLED", sched, err)
	}
	if _, err := db.Exec("SET GLOBAL event_scheduler = ON"); !errors.As(err, &me) || me.Number != 1290 {
		t.Fatalf("SET GLOBAL event_scheduler = ON: %v, want 1290", err)
	}
	names := func(db *sql.DB) []string {
		rows, err := db.Query("SELECT EVENT_NAME FROM information_schema.EVENTS WHERE EVENT_SCHEMA = 'ev' ORDER BY 1")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		return out
	}
	if got := names(db); !reflect.DeepEqual(got, []string{"once", "tick"}) {
		t.Fatalf("events: %v", got)
	}
	// Nothing ran the every-second event.
	time.Sleep(1500 * time.Millisecond)
	var rows int
	if err := db.QueryRow("SELECT COUNT(*) FROM ev.t").Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("rows the events made: %d, %v; want 0", rows, err)
	}
	db.Close()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if n, err = node.Open(opts); err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	db = connect(n)
	if got := names(db); !reflect.DeepEqual(got, []string{"once", "tick"}) {
		t.Fatalf("events after a restart: %v", got)
	}
	mustExec(t, db, "DROP EVENT ev.once")
	if got := names(db); !reflect.DeepEqual(got, []string{"tick"}) {
		t.Fatalf("events after DROP EVENT: %v", got)
	}
}

// A routine's body names tables of its own database, whatever database
// the caller has selected (mysql-test-run's CALL mtr.add_suppression
// from the test database), and the caller's database is current again
// after the CALL.
func TestCallRunsInTheRoutinesDatabase(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE rdb", "CREATE DATABASE other", "CREATE TABLE rdb.s (v VARCHAR(20))",
		"CREATE TABLE other.s (v VARCHAR(20))",
		"CREATE PROCEDURE rdb.addrow(x VARCHAR(20)) BEGIN INSERT INTO s VALUES (x); SELECT COUNT(*) FROM s; END",
		"USE other", "CALL rdb.addrow('one')")
	if got := queryRows(t, db, "SELECT (SELECT COUNT(*) FROM rdb.s), (SELECT COUNT(*) FROM other.s), DATABASE()"); !reflect.DeepEqual(got, [][]string{{"1", "0", "other"}}) {
		t.Fatalf("after CALL rdb.add from other: %v, want the row in rdb.s and other still current", got)
	}
}

// TestCallInTransaction: a procedure CALLed inside a transaction writes
// in that transaction, as in MySQL: its rows are seen by the caller's
// next statement, undone by ROLLBACK, kept by COMMIT, under START
// TRANSACTION and under autocommit=0. (GMS ran the procedure in a
// transaction of its own that nothing committed: the rows vanished.)
func TestCallInTransaction(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE ct", "CREATE TABLE ct.c (id INT AUTO_INCREMENT PRIMARY KEY, note VARCHAR(20))",
		`CREATE PROCEDURE ct.two(IN tag VARCHAR(10), OUT a INT, OUT b INT) BEGIN
		   INSERT INTO ct.c (note) VALUES (CONCAT(tag, '1')); SET a = (SELECT COUNT(*) FROM ct.c);
		   INSERT INTO ct.c (note) VALUES (CONCAT(tag, '2')); SET b = (SELECT COUNT(*) FROM ct.c);
		 END`)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	notes := func() string {
		t.Helper()
		var out []string
		for _, r := range callSets(t, conn, "SELECT note FROM ct.c ORDER BY id")[0][1:] {
			out = append(out, r[0])
		}
		return strings.Join(out, ",")
	}
	mustExecConn(t, conn, "CALL ct.two('auto', @a, @b)")
	if got := notes(); got != "auto1,auto2" {
		t.Fatalf("autocommit CALL: %s", got)
	}
	mustExecConn(t, conn, "START TRANSACTION", "CALL ct.two('undo', @a, @b)")
	if got, want := callSets(t, conn, "SELECT @a, @b, COUNT(*) FROM ct.c")[0][1], []string{"3", "4", "4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("inside the transaction: %v, want %v", got, want)
	}
	mustExecConn(t, conn, "ROLLBACK")
	if got := notes(); got != "auto1,auto2" {
		t.Errorf("after ROLLBACK: %s, want auto1,auto2", got)
	}
	mustExecConn(t, conn, "START TRANSACTION", "CALL ct.two('keep', @a, @b)", "INSERT INTO ct.c (note) VALUES ('after')", "COMMIT")
	if got := notes(); got != "auto1,auto2,keep1,keep2,after" {
		t.Errorf("after COMMIT: %s", got)
	}
	mustExecConn(t, conn, "SET autocommit = 0", "CALL ct.two('ac0', @a, @b)", "ROLLBACK", "CALL ct.two('ac0k', @a, @b)", "COMMIT", "SET autocommit = 1")
	if got := notes(); got != "auto1,auto2,keep1,keep2,after,ac0k1,ac0k2" {
		t.Errorf("autocommit=0: %s", got)
	}
	// Another session sees only what was committed.
	if got := queryRows(t, db, "SELECT COUNT(*) FROM ct.c"); got[0][0] != "7" {
		t.Errorf("another session counts %v, want 7", got)
	}
}

// TestRoutineVariablesInExpressions: a procedure's variables and
// parameters read in IS [NOT] NULL/TRUE/FALSE, CASE, [NOT] BETWEEN and
// unary minus (GMS's interpreter left them as column names there: 1054),
// and a DECLAREd variable without DEFAULT is NULL (GMS started it at an
// empty string or 0), so a SELECT ... INTO that finds no row leaves it NULL.
func TestRoutineVariablesInExpressions(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE rv", "CREATE TABLE rv.item (id INT PRIMARY KEY, name VARCHAR(20))", "INSERT INTO rv.item VALUES (1, 'one'), (2, NULL), (60, 'sixty')",
		`CREATE PROCEDURE rv.classify(IN i INT, OUT r VARCHAR(200))
		 BEGIN
		   DECLARE n VARCHAR(20);
		   DECLARE k INT DEFAULT 0;
		   SELECT name INTO n FROM rv.item WHERE id = i;
		   IF n IS NULL THEN SET r = 'null'; ELSE SET r = n; END IF;
		   IF n IS NOT NULL THEN SET k = k + 1; END IF;
		   IF i IS TRUE THEN SET k = k + 10; END IF;
		   IF (i - 1) IS FALSE THEN SET k = k + 100; END IF;
		   SET r = CONCAT(r, ',', k, ',',
		     CASE WHEN i BETWEEN 1 AND 1 THEN 'first' WHEN i NOT BETWEEN 0 AND 9 THEN 'far' ELSE 'near' END, ',',
		     CASE i WHEN 2 THEN 'two' ELSE 'other' END, ',', -i, ',', IFNULL(n IS NULL, 'x'));
		 END`)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for i, want := range map[int]string{1: "one,111,first,other,-1,0", 2: "null,10,near,two,-2,1", 50: "null,10,far,other,-50,1", 60: "sixty,11,far,other,-60,0"} {
		mustExecConn(t, conn, fmt.Sprintf("CALL rv.classify(%d, @r)", i))
		if got := callSets(t, conn, "SELECT @r")[0][1][0]; got != want {
			t.Errorf("classify(%d) = %q, want %q", i, got, want)
		}
	}
}

// TestCursorLoopWithWrites: a cursor read in a loop whose statements
// write (and, in autocommit mode, commit) reads every row: the cursor's
// result is read whole at OPEN, as MySQL materialises it (GMS kept an
// iterator over a transaction the loop's first INSERT committed: the
// next FETCH failed).
func TestCursorLoopWithWrites(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE cl", "CREATE TABLE cl.src (id INT PRIMARY KEY, v INT)",
		"INSERT INTO cl.src VALUES (1, 10), (2, 20), (3, 30), (4, 40)",
		"CREATE TABLE cl.dst (id INT PRIMARY KEY, v INT)",
		`CREATE PROCEDURE cl.copy_rows()
		 BEGIN
		   DECLARE done INT DEFAULT FALSE;
		   DECLARE a, b INT;
		   DECLARE cur CURSOR FOR SELECT id, v FROM cl.src ORDER BY id;
		   DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = TRUE;
		   OPEN cur;
		   read_loop: LOOP
		     FETCH cur INTO a, b;
		     IF done THEN LEAVE read_loop; END IF;
		     INSERT INTO cl.dst VALUES (a, b * 2);
		     UPDATE cl.src SET v = v + 1 WHERE id = a + 1;
		   END LOOP;
		   CLOSE cur;
		 END`)
	mustExec(t, db, "CALL cl.copy_rows()")
	// The cursor's rows are those at OPEN: the UPDATEs in the loop do
	// not change what it returns (MySQL's materialised cursor).
	if got := queryRows(t, db, "SELECT GROUP_CONCAT(CONCAT(id, ':', v) ORDER BY id) FROM cl.dst"); got[0][0] != "1:20,2:40,3:60,4:80" {
		t.Errorf("dst after the cursor loop: %v, want 1:20,2:40,3:60,4:80", got)
	}
	if got := queryRows(t, db, "SELECT GROUP_CONCAT(v ORDER BY id) FROM cl.src"); got[0][0] != "10,21,31,41" {
		t.Errorf("src after the loop's updates: %v", got)
	}
}

// TestNoCommitInFunctionOrTrigger: a stored function or trigger whose
// body commits, explicitly or by DDL of a table that is not temporary,
// is refused when created with MySQL's 1422; temporary tables' DDL is
// taken, and a procedure may commit (mtr's temp_table).
func TestNoCommitInFunctionOrTrigger(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE nc", "USE nc", "CREATE TABLE t (a INT)")
	for _, q := range []string{
		"CREATE FUNCTION f1() RETURNS INT DETERMINISTIC BEGIN CREATE TABLE x (a INT); RETURN 0; END",
		"CREATE FUNCTION f2() RETURNS INT DETERMINISTIC BEGIN COMMIT; RETURN 0; END",
		"CREATE FUNCTION f3() RETURNS INT DETERMINISTIC BEGIN DROP TABLE t; RETURN 0; END",
		"CREATE TRIGGER tr1 BEFORE INSERT ON t FOR EACH ROW BEGIN IF NEW.a = 1 THEN COMMIT; END IF; END",
		"CREATE TRIGGER tr2 BEFORE INSERT ON t FOR EACH ROW BEGIN DROP TABLE t; END",
	} {
		if _, err := db.Exec(q); errno(t, err) != 1422 {
			t.Errorf("%s: %v, want error 1422", q, err)
		}
	}
	mustExec(t, db,
		"CREATE FUNCTION f4() RETURNS INT DETERMINISTIC BEGIN DROP TEMPORARY TABLE IF EXISTS tt; CREATE TEMPORARY TABLE tt (i INT); INSERT INTO tt VALUES (1); DROP TEMPORARY TABLE tt; RETURN 0; END",
		"CREATE PROCEDURE p() BEGIN CREATE TABLE x7 (a INT); COMMIT; END")
	if got := queryRows(t, db, "SELECT f4()"); len(got) != 1 || got[0][0] != "0" {
		t.Errorf("SELECT f4(): %v", got)
	}
}

// TestCallUnionResultSets: a procedure's SELECT ... UNION SELECT is a
// result set of its CALL, in order with the plain SELECTs, over the text
// protocol and the binary one (go-sql-driver's TestMultiResultSet); the
// interpreter runs a set operation as a plain statement, so it was left
// out and a CALL of such a procedure answered with no result set.
func TestCallUnionResultSets(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE cu",
		`CREATE PROCEDURE cu.mrss() BEGIN
		   DO 1;
		   SELECT 1 AS col1, 2 AS col2 UNION SELECT 3, 4;
		   SELECT 0 AS z;
		   SELECT 1 AS col1, 2 AS col2, 3 AS col3 UNION ALL SELECT 4, 5, 6;
		 END`)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	want := [][][]string{
		{{"col1", "col2"}, {"1", "2"}, {"3", "4"}},
		{{"z"}, {"0"}},
		{{"col1", "col2", "col3"}, {"1", "2", "3"}, {"4", "5", "6"}},
	}
	if got := callSets(t, conn, "CALL cu.mrss()"); !reflect.DeepEqual(got, want) {
		t.Errorf("text CALL: %v, want %v", got, want)
	}
	// With an argument go-sql-driver prepares and executes (binary).
	mustExec(t, db, "CREATE PROCEDURE cu.mrss2(IN n INT) BEGIN SELECT n AS a UNION SELECT n + 1; SELECT n * 10 AS b; END")
	want2 := [][][]string{{{"a"}, {"7"}, {"8"}}, {{"b"}, {"70"}}}
	for i := 0; i < 2; i++ {
		if got := callSets(t, conn, "CALL cu.mrss2(?)", 7); !reflect.DeepEqual(got, want2) {
			t.Errorf("binary CALL, run %d: %v, want %v", i, got, want2)
		}
	}
}
