package node_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestRoutineHandlers: DECLARE ... HANDLER for an error number, an
// SQLSTATE, a named condition, SQLWARNING, NOT FOUND and SQLEXCEPTION,
// chosen as MySQL 8 chooses (the innermost block with a matching
// handler, its most specific one), CONTINUE and EXIT (GMS took
// SQLEXCEPTION and NOT FOUND only, and ran one statement of a handler's
// body).
func TestRoutineHandlers(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE hd", "CREATE TABLE hd.t (id INT PRIMARY KEY)", "INSERT INTO hd.t VALUES (1)",
		// Specific number before SQLSTATE before class, in one block;
		// CONTINUE goes on after the failed statement.
		`CREATE PROCEDURE hd.dup(OUT r VARCHAR(100))
		 BEGIN
		   DECLARE CONTINUE HANDLER FOR SQLEXCEPTION SET r = CONCAT(r, 'exception;');
		   DECLARE CONTINUE HANDLER FOR SQLSTATE '23000' SET r = CONCAT(r, 'state;');
		   DECLARE CONTINUE HANDLER FOR 1062 BEGIN SET r = CONCAT(r, 'errno'); SET r = CONCAT(r, ';'); END;
		   SET r = '';
		   INSERT INTO hd.t VALUES (1);
		   SET r = CONCAT(r, 'after;');
		   INSERT INTO hd.nosuch VALUES (1);
		   SET r = CONCAT(r, 'end');
		 END`,
		// The inner block's handler is chosen over the outer's more
		// specific one; EXIT leaves the block that declared the handler.
		`CREATE PROCEDURE hd.nested(OUT r VARCHAR(100))
		 BEGIN
		   DECLARE CONTINUE HANDLER FOR 1062 SET r = CONCAT(r, 'outer;');
		   SET r = '';
		   BEGIN
		     DECLARE EXIT HANDLER FOR SQLEXCEPTION SET r = CONCAT(r, 'inner;');
		     INSERT INTO hd.t VALUES (1);
		     SET r = CONCAT(r, 'not reached;');
		   END;
		   INSERT INTO hd.t VALUES (1);
		   SET r = CONCAT(r, 'end');
		 END`,
		// A named condition, for a number and for an SQLSTATE.
		`CREATE PROCEDURE hd.named(OUT r VARCHAR(100))
		 BEGIN
		   DECLARE no_table CONDITION FOR 1146;
		   DECLARE custom CONDITION FOR SQLSTATE '45001';
		   DECLARE CONTINUE HANDLER FOR no_table SET r = CONCAT(r, 'no_table;');
		   DECLARE CONTINUE HANDLER FOR custom SET r = CONCAT(r, 'custom;');
		   SET r = '';
		   SELECT * FROM hd.nosuch;
		   SIGNAL custom;
		   SET r = CONCAT(r, 'end');
		 END`,
		// NOT FOUND takes SELECT ... INTO's 1329; SQLWARNING a SIGNAL of
		// an '01' SQLSTATE.
		`CREATE PROCEDURE hd.notfound(OUT r VARCHAR(100))
		 BEGIN
		   DECLARE v INT;
		   DECLARE CONTINUE HANDLER FOR NOT FOUND SET r = CONCAT(r, 'notfound;');
		   DECLARE CONTINUE HANDLER FOR SQLWARNING SET r = CONCAT(r, 'warning;');
		   SET r = '';
		   SELECT id INTO v FROM hd.t WHERE id = 99;
		   SIGNAL SQLSTATE '01000';
		   SET r = CONCAT(r, 'end');
		 END`,
		// An error in a handler's body is not its own handler's.
		`CREATE PROCEDURE hd.inhandler(OUT r VARCHAR(100))
		 BEGIN
		   DECLARE EXIT HANDLER FOR SQLEXCEPTION SET r = 'outer';
		   BEGIN
		     DECLARE CONTINUE HANDLER FOR SQLEXCEPTION INSERT INTO hd.nosuch VALUES (2);
		     INSERT INTO hd.nosuch VALUES (1);
		   END;
		   SET r = 'not reached';
		 END`,
		// A stored function's RETURN in an EXIT handler's body.
		`CREATE FUNCTION hd.f() RETURNS VARCHAR(20) DETERMINISTIC
		 BEGIN
		   DECLARE EXIT HANDLER FOR SQLSTATE '42S02' RETURN 'No such table';
		   INSERT INTO hd.nosuch VALUES (1);
		   RETURN 'done';
		 END`)
	// A handler's SELECT is one of the CALL's result sets.
	mustExec(t, db, `CREATE PROCEDURE hd.cleanup()
		 BEGIN
		   DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN SELECT 'Doing cleanup' AS msg; END;
		   SELECT 'first' AS msg;
		   INSERT INTO hd.nosuch VALUES (1);
		 END`)
	sconn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer sconn.Close()
	if got := callSets(t, sconn, "CALL hd.cleanup()"); fmt.Sprint(got) != "[[[msg] [first]] [[msg] [Doing cleanup]]]" {
		t.Errorf("CALL hd.cleanup(): result sets %v", got)
	}
	if got := one(t, open("hd"), "SELECT f()"); got != "No such table" {
		t.Errorf("f() = %q, want the handler's RETURN", got)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A statement's warning goes to a handler FOR SQLWARNING or its
	// number (a string cut to its column outside strict mode: 1265; the
	// procedure is created, and so runs, outside strict mode).
	mustExecConn(t, conn, "SET sql_mode = ''", "CREATE TABLE hd.s (c VARCHAR(2))",
		`CREATE PROCEDURE hd.warned(OUT r VARCHAR(100))
		 BEGIN
		   DECLARE CONTINUE HANDLER FOR SQLWARNING SET r = CONCAT(r, 'warning;');
		   SET r = '';
		   BEGIN
		     DECLARE CONTINUE HANDLER FOR 1265 SET r = CONCAT(r, '1265;');
		     INSERT INTO hd.s VALUES ('abc');
		   END;
		   INSERT INTO hd.s VALUES ('abc');
		   SET r = CONCAT(r, 'end');
		 END`)
	for proc, want := range map[string]string{
		"warned":    "1265;warning;end",
		"dup":       "errno;after;exception;end",
		"nested":    "inner;outer;end",
		"named":     "no_table;custom;end",
		"notfound":  "notfound;warning;end",
		"inhandler": "outer",
	} {
		mustExecConn(t, conn, "SET @r = NULL", fmt.Sprintf("CALL hd.%s(@r)", proc))
		if got := callSets(t, conn, "SELECT @r")[0][1][0]; got != want {
			t.Errorf("%s: @r = %q, want %q", proc, got, want)
		}
	}
}

// TestSignal: SIGNAL and RESIGNAL with MySQL's numbers and SQLSTATEs,
// message and number from variables; SELECT ... INTO of no row leaves
// warning 1329 when no handler takes it.
func TestSignal(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE sg", "CREATE TABLE sg.t (id INT PRIMARY KEY)",
		`CREATE PROCEDURE sg.fail(IN n INT)
		 BEGIN
		   DECLARE msg VARCHAR(100) DEFAULT CONCAT('bad value ', n);
		   IF n = 1 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = msg; END IF;
		   IF n = 2 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'two', MYSQL_ERRNO = 1234; END IF;
		   IF n = 3 THEN SIGNAL SQLSTATE '45000'; END IF;
		   IF n = 4 THEN SIGNAL SQLSTATE '02000'; END IF;
		   IF n = 5 THEN SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = 65535; END IF;
		   IF n = 6 THEN RESIGNAL; END IF;
		   IF n = 8 THEN SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = 999, MESSAGE_TEXT = 'low'; END IF;
		   IF n = 9 THEN
		     BEGIN
		       DECLARE EXIT HANDLER FOR 5 SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'caught 5';
		       SIGNAL SQLSTATE '45001' SET MYSQL_ERRNO = 5;
		     END;
		   END IF;
		   IF n = 7 THEN
		     BEGIN
		       DECLARE EXIT HANDLER FOR SQLEXCEPTION RESIGNAL SET MESSAGE_TEXT = 'resignalled';
		       INSERT INTO sg.t VALUES (1), (1);
		     END;
		   END IF;
		 END`,
		`CREATE PROCEDURE sg.nodata()
		 BEGIN
		   DECLARE v INT;
		   SELECT id INTO v FROM sg.t WHERE id = 99;
		 END`)
	cases := []struct {
		n     int
		num   uint16
		state string
		msg   string
	}{
		{1, 1644, "45000", "bad value 1"},
		{2, 1234, "45000", "two"},
		{3, 1644, "45000", "Unhandled user-defined exception condition"},
		{4, 1643, "02000", "Unhandled user-defined not found condition"},
		{5, 1231, "42000", "Variable 'MYSQL_ERRNO' can't be set to the value of '65535'"},
		{6, 1645, "0K000", "RESIGNAL when handler not active"},
		{7, 1062, "23000", "resignalled"},
		// MYSQL_ERRNO below 1000 stands, as MySQL's (was 1105).
		{8, 999, "45000", "low"},
		{9, 1644, "45000", "caught 5"},
	}
	for _, c := range cases {
		_, err := db.Exec(fmt.Sprintf("CALL sg.fail(%d)", c.n))
		var me *mysql.MySQLError
		if !errors.As(err, &me) {
			t.Errorf("fail(%d): %v, want error %d", c.n, err, c.num)
			continue
		}
		if me.Number != c.num || string(me.SQLState[:]) != c.state || me.Message != c.msg {
			t.Errorf("fail(%d): %d (%s) %q, want %d (%s) %q", c.n, me.Number, me.SQLState[:], me.Message, c.num, c.state, c.msg)
		}
	}
	// A statement's error is worded for that statement, not the CALL:
	// DROP TABLE of a missing table is 1051.
	mustExec(t, db, "CREATE PROCEDURE sg.droptab() DROP TABLE nosuch")
	if _, err := db.Exec("CALL sg.droptab()"); errno(t, err) != 1051 || err.Error() != "Error 1051 (42S02): Unknown table 'sg.nosuch'" {
		t.Errorf("CALL of a DROP TABLE of a missing table: %v, want 1051", err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExecConn(t, conn, "CALL sg.nodata()")
	if got := callSets(t, conn, "SHOW WARNINGS"); len(got) != 1 || fmt.Sprint(got[0][1:]) != "[[Warning 1329 No data - zero rows fetched, selected, or processed]]" {
		t.Errorf("warnings after SELECT ... INTO of no row: %v", got)
	}
}

// TestRoutineConditionChecks: CREATE PROCEDURE refuses wrong conditions
// as MySQL's parser does (GMS took every one of these).
func TestRoutineConditionChecks(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE rc")
	for body, want := range map[string]uint16{
		"SIGNAL foo": 1319,
		"DECLARE foo CONDITION FOR 1234; SIGNAL foo":                                                 1646,
		"DECLARE foo CONDITION FOR SQLSTATE '00000'":                                                 1407,
		"SIGNAL SQLSTATE '4200'":                                                                     1407,
		"SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'a', MESSAGE_TEXT = 'b'":                         1641,
		"DECLARE c CONDITION FOR 1062; DECLARE c CONDITION FOR 1063":                                 1332,
		"DECLARE CONTINUE HANDLER FOR 1062 SET @a = 1; DECLARE CONTINUE HANDLER FOR 1062 SET @a = 2": 1413,
		"DECLARE CONTINUE HANDLER FOR nosuch SET @a = 1":                                             1319,
		"BEGIN DECLARE foo CONDITION FOR SQLSTATE '45000'; END; SIGNAL foo":                          1319,
	} {
		_, err := db.Exec("CREATE PROCEDURE rc.p() BEGIN " + body + "; END")
		if got := errno(t, err); got != want {
			t.Errorf("%s: error %d (%v), want %d", body, got, err, want)
		}
	}
	// The same through a multi-statement connection (GMS's parse
	// there ignored a parser's error when it gave a statement).
	n, _ := startNode(t)
	multi := openWith(t, n, "", func(c *mysql.Config) { c.MultiStatements = true })
	mustExec(t, multi, "CREATE DATABASE rc")
	if _, err := multi.Exec("CREATE PROCEDURE rc.p() BEGIN DECLARE foo CONDITION FOR 1234; SIGNAL foo; END"); errno(t, err) != 1646 {
		t.Errorf("multi-statement CREATE with SIGNAL of a number's condition: %v, want 1646", err)
	}
	// SIGNAL and RESIGNAL outside a routine.
	for q, want := range map[string]uint16{
		"SIGNAL SQLSTATE '00001'":                         1407,
		"SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = 65535": 1231,
		"SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = 0":     1231,
		"SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = 65534": 65534,
		"SIGNAL SQLSTATE '23000'":                         1644,
		"RESIGNAL":                                        1645,
		"RESIGNAL SQLSTATE '12345'":                       1645,
		"RESIGNAL foo":                                    1319,
	} {
		if _, err := db.Exec(q); errno(t, err) != want {
			t.Errorf("%s: %v, want %d", q, err, want)
		}
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExecConn(t, conn, "SIGNAL SQLSTATE '01000'")
	if got := callSets(t, conn, "SHOW WARNINGS"); fmt.Sprint(got[0][1:]) != "[[Warning 1642 Unhandled user-defined warning condition]]" {
		t.Errorf("warnings after SIGNAL SQLSTATE '01000': %v", got)
	}
}

// TestRoutineMultiSet: a SET of several variables in a procedure's body
// (GMS's compiler of a body panicked on it, which also failed every read
// of information_schema.ROUTINES while such a procedure existed).
func TestRoutineMultiSet(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE ms",
		`CREATE PROCEDURE ms.p(OUT r VARCHAR(50))
		 BEGIN
		   DECLARE a, b INT;
		   DECLARE CONTINUE HANDLER FOR SQLEXCEPTION SET @h1 = 'h', @h2 = 'i';
		   SET a = 1, b = a + 1, @u = 10;
		   SELECT * FROM ms.nosuch;
		   SET r = CONCAT(a, ',', b, ',', @u, ',', @h1, @h2);
		 END`)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExecConn(t, conn, "CALL ms.p(@r)")
	if got := callSets(t, conn, "SELECT @r")[0][1][0]; got != "1,2,10,hi" {
		t.Errorf("@r = %q, want 1,2,10,hi", got)
	}
	if got := one(t, db, "SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'ms'"); got != "1" {
		t.Errorf("information_schema.ROUTINES rows of ms: %s, want 1", got)
	}
}

// TestRoutinePreparedRecursion: a routine's EXECUTE of the prepared
// statement that is running (it called the routine) is 1444, as MySQL's,
// whatever max_sp_recursion_depth allows.
func TestRoutinePreparedRecursion(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE pr", "CREATE PROCEDURE pr.p1() BEGIN EXECUTE stmt; END")
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExecConn(t, conn, "PREPARE stmt FROM 'CALL pr.p1()'", "SET @@max_sp_recursion_depth = 100")
	for _, q := range []string{"EXECUTE stmt", "CALL pr.p1()"} {
		if _, err := conn.ExecContext(context.Background(), q); errno(t, err) != 1444 {
			t.Errorf("%s: %v, want 1444", q, err)
		}
	}
}

// TestRoutineRunsInItsSQLMode: a procedure runs with the sql_mode it was
// created with, not its caller's, as MySQL's.
func TestRoutineRunsInItsSQLMode(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExecConn(t, conn, "CREATE DATABASE sm", "CREATE TABLE sm.t (c VARCHAR(2))",
		"SET sql_mode = 'STRICT_ALL_TABLES'", "CREATE PROCEDURE sm.strict_ins() INSERT INTO sm.t VALUES ('abc')",
		"SET sql_mode = ''", "CREATE PROCEDURE sm.loose_ins() INSERT INTO sm.t VALUES ('xyz')")
	if _, err := conn.ExecContext(context.Background(), "CALL sm.strict_ins()"); errno(t, err) != 1406 {
		t.Errorf("strict procedure called outside strict mode: %v, want 1406", err)
	}
	mustExecConn(t, conn, "SET sql_mode = 'STRICT_ALL_TABLES'", "CALL sm.loose_ins()")
	if got := one(t, db, "SELECT GROUP_CONCAT(c) FROM sm.t"); got != "xy" {
		t.Errorf("rows: %q, want the loose procedure's cut value only", got)
	}
	if got := callSets(t, conn, "SELECT @@sql_mode")[0][1][0]; got != "STRICT_ALL_TABLES" {
		t.Errorf("caller's sql_mode after the CALL: %q", got)
	}
}

// TestRoutineRecursionKeepsParams: each level of a recursion reads its
// own parameters after its recursive CALL (GMS kept one value per
// parameter name for the session: every level read the innermost's).
func TestRoutineRecursionKeepsParams(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE rr",
		`CREATE PROCEDURE rr.down(IN n INT, INOUT acc VARCHAR(100))
		 BEGIN
		   IF n > 0 THEN
		     CALL rr.down(n - 1, acc);
		     SET acc = CONCAT(acc, n, ',');
		   END IF;
		 END`)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExecConn(t, conn, "SET @@max_sp_recursion_depth = 10", "SET @a = ''", "CALL rr.down(3, @a)")
	if got := callSets(t, conn, "SELECT @a")[0][1][0]; got != "1,2,3," {
		t.Errorf("@a = %q, want 1,2,3,", got)
	}
}

// TestRoutineVariableTooLong: a string too long for a routine's variable
// is 1406 in strict mode and cut with warning 1265 outside it, as MySQL
// stores it (GMS kept the whole string).
func TestRoutineVariableTooLong(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExecConn(t, conn, "CREATE DATABASE vt",
		"SET sql_mode = 'STRICT_ALL_TABLES'",
		"CREATE PROCEDURE vt.strict_set() BEGIN DECLARE v VARCHAR(3); SET v = 'abcd'; END",
		"SET sql_mode = ''",
		"CREATE PROCEDURE vt.loose_set(OUT r VARCHAR(10)) BEGIN DECLARE v VARCHAR(3); SET v = 'abcd'; SET r = v; END")
	_, err = conn.ExecContext(context.Background(), "CALL vt.strict_set()")
	if errno(t, err) != 1406 || err.Error() != "Error 1406 (22001): Data too long for column 'v' at row 1" {
		t.Errorf("strict: %v, want 1406", err)
	}
	mustExecConn(t, conn, "CALL vt.loose_set(@r)")
	if got := callSets(t, conn, "SELECT @r")[0][1][0]; got != "abc" {
		t.Errorf("loose: @r = %q, want abc", got)
	}
}
