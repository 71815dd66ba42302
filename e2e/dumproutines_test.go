package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"os/exec"
	"reflect"
	"strconv"
	"testing"
	"time"

	"petrel/lab"
)

// TestDumpRoutinesTriggersEvents: `mariadb-dump --single-transaction
// --routines --triggers --events` of a database with a stored procedure,
// triggers and an event, taken from Petrel, loads into a fresh database
// on Petrel and into MariaDB; taken from MariaDB, it loads into Petrel.
// Every copy holds the same rows (the rows themselves, and among Petrel's
// copies CHECKSUM TABLE), the same routines, triggers, events and foreign
// key (its child table dumped, and loaded, before its parent), and
// behaves the same: the triggers fire on a new row, the procedure
// answers with the same result sets, the foreign key cascades a delete
// and refuses an orphan.
func TestDumpRoutinesTriggersEvents(t *testing.T) {
	dump := requireTool(t, "mariadb-dump", "/usr/bin/mariadb-dump")
	client := requireTool(t, "mariadb", "/usr/bin/mariadb")
	ctx := testContext(t, 4*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	m, mroot := startMariaDB(t, ctx, 0)
	proot := rootDB(t, p, "")

	// MariaDB 10.11 has no utf8mb4_0900_ai_ci, MySQL 8's default.
	mustExec(t, ctx, proot, "CREATE DATABASE shop COLLATE utf8mb4_general_ci")
	src := rootDB(t, p, "shop")
	mustExec(t, ctx, src,
		"CREATE TABLE item (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, price DECIMAL(10,2), added DATETIME, note TEXT, KEY (name))",
		"CREATE TABLE audit (id INT AUTO_INCREMENT PRIMARY KEY, item_id INT, what VARCHAR(20))",
		"INSERT INTO item VALUES (1, 'apple', 1.25, '2024-01-02 03:04:05', 'red'), (2, 'pear', 0.99, '2024-02-03 04:05:06', NULL), (3, 'plum', 12.50, NULL, 'it''s \"ripe\"\\n')",
		"CREATE TRIGGER item_ins AFTER INSERT ON item FOR EACH ROW INSERT INTO audit (item_id, what) VALUES (NEW.id, 'added')",
		"CREATE TRIGGER item_name BEFORE INSERT ON item FOR EACH ROW SET NEW.name = LOWER(NEW.name)",
		`CREATE PROCEDURE report(IN minprice DECIMAL(10,2))
		 BEGIN
		   SELECT id, name FROM item WHERE price >= minprice ORDER BY id;
		   SELECT COUNT(*) AS n FROM audit;
		 END`,
		"CREATE EVENT purge_audit ON SCHEDULE EVERY 1 DAY DO DELETE FROM audit WHERE id < 0",
		"CREATE FUNCTION with_tax(p DECIMAL(10,2)) RETURNS DECIMAL(10,2) DETERMINISTIC RETURN ROUND(p * 1.2, 2)",
		`CREATE FUNCTION label(i INT) RETURNS VARCHAR(60) READS SQL DATA
		 BEGIN
		   DECLARE c INT;
		   DECLARE n VARCHAR(40);
		   SELECT COUNT(*) INTO c FROM item WHERE id = i;
		   IF c = 0 THEN RETURN 'none'; END IF;
		   SELECT name INTO n FROM item WHERE id = i;
		   IF n IS NULL THEN RETURN '?'; END IF;
		   RETURN CONCAT(n, '#', i);
		 END`,
		// A child table dumped before its parent (mariadb-dump orders
		// tables by name and loads with FOREIGN_KEY_CHECKS=0).
		"CREATE TABLE basket (id INT PRIMARY KEY, item_id INT, qty INT, CONSTRAINT fk_basket_item FOREIGN KEY (item_id) REFERENCES item (id) ON DELETE CASCADE ON UPDATE CASCADE)",
		"INSERT INTO basket VALUES (1, 1, 5), (2, 1, 1), (3, 3, 2), (4, NULL, 9)",
	)

	runDump := func(port int, password, db string) []byte {
		t.Helper()
		dctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(dctx, dump, "--no-defaults", "--protocol=TCP", "-h", "127.0.0.1", "-P", strconv.Itoa(port),
			"-u", "root", "--password="+password, "--skip-ssl", "--single-transaction", "--routines", "--triggers", "--events", db)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("mariadb-dump of %s on port %d: %v\nstderr: %s\nstdout ends: %s", db, port, err, errb.String(), tail(out.String(), 600))
		}
		return out.Bytes()
	}
	load := func(port int, password, db string, sqlText []byte) {
		t.Helper()
		dctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(dctx, client, "--no-defaults", "--protocol=TCP", "-h", "127.0.0.1", "-P", strconv.Itoa(port),
			"-u", "root", "--password="+password, "--skip-ssl", db)
		cmd.Stdin = bytes.NewReader(sqlText)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("loading the dump into %s on port %d: %v\n%s", db, port, err, errb.String())
		}
	}

	fromPetrel := runDump(p.Port(), rootPassword, "shop")
	mustExec(t, ctx, proot, "CREATE DATABASE shop2")
	load(p.Port(), rootPassword, "shop2", fromPetrel)
	mustExec(t, ctx, mroot, "CREATE DATABASE shop")
	load(m.Port(), "", "shop", fromPetrel)
	mdb, err := m.DB("shop")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mdb.Close() })
	fromMariaDB := runDump(m.Port(), "", "shop")
	mustExec(t, ctx, proot, "CREATE DATABASE shop3")
	load(p.Port(), rootPassword, "shop3", fromMariaDB)

	copies := map[string]*sql.DB{"petrel shop": src, "petrel shop2": rootDB(t, p, "shop2"), "mariadb shop": mdb, "petrel shop3": rootDB(t, p, "shop3")}
	type state struct {
		checksums, procs, funcs, triggers, events, fks, basket []string
		rows                                                   [][]string
	}
	read := func(db *sql.DB) state {
		var s state
		for _, tb := range []string{"item", "audit", "basket"} {
			var name string
			var sum sql.NullInt64
			if err := db.QueryRowContext(ctx, "CHECKSUM TABLE "+tb).Scan(&name, &sum); err != nil {
				t.Fatalf("CHECKSUM TABLE %s: %v", tb, err)
			}
			s.checksums = append(s.checksums, strconv.FormatInt(sum.Int64, 10))
		}
		s.procs = queryStrings(t, ctx, db, "SELECT ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE() AND ROUTINE_TYPE = 'PROCEDURE' ORDER BY 1")
		dbName := queryStrings(t, ctx, db, "SELECT DATABASE()")[0]
		frows, err := db.QueryContext(ctx, "SHOW FUNCTION STATUS WHERE Db = '"+dbName+"'")
		if err != nil {
			t.Fatalf("SHOW FUNCTION STATUS: %v", err)
		}
		for frows.Next() {
			cols, _ := frows.Columns()
			v := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range v {
				ptrs[i] = &v[i]
			}
			if err := frows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			s.funcs = append(s.funcs, v[1].String+" "+v[2].String+" "+v[6].String)
		}
		frows.Close()
		s.funcs = append(s.funcs, queryStrings(t, ctx, db, "SELECT CONCAT_WS('|', id, with_tax(price), label(id), label(99)) FROM item ORDER BY id")...)
		s.triggers = queryStrings(t, ctx, db, "SELECT CONCAT(TRIGGER_NAME, ' ', ACTION_TIMING, ' ', EVENT_MANIPULATION) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE() ORDER BY 1")
		s.events = queryStrings(t, ctx, db, "SELECT CONCAT(EVENT_NAME, ' ', INTERVAL_VALUE, ' ', INTERVAL_FIELD) FROM information_schema.EVENTS WHERE EVENT_SCHEMA = DATABASE() ORDER BY 1")
		s.fks = queryStrings(t, ctx, db, "SELECT CONCAT(CONSTRAINT_NAME, ' ', TABLE_NAME, ' ', REFERENCED_TABLE_NAME, ' ', UPDATE_RULE, ' ', DELETE_RULE) FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE() ORDER BY 1")
		s.basket = queryStrings(t, ctx, db, "SELECT CONCAT_WS(':', id, IFNULL(item_id, 'null'), qty) FROM basket ORDER BY id")
		rows, err := db.QueryContext(ctx, "SELECT id, name, price, added, note FROM item ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			v := make([]sql.NullString, 5)
			if err := rows.Scan(&v[0], &v[1], &v[2], &v[3], &v[4]); err != nil {
				t.Fatal(err)
			}
			var r []string
			for _, x := range v {
				r = append(r, x.String+"/"+strconv.FormatBool(x.Valid))
			}
			s.rows = append(s.rows, r)
		}
		return s
	}
	want := read(src)
	if len(want.procs) != 1 || len(want.funcs) != 5 || len(want.triggers) != 2 || len(want.events) != 1 || len(want.rows) != 3 || len(want.fks) != 1 || len(want.basket) != 4 {
		t.Fatalf("source: %+v", want)
	}
	for name, db := range copies {
		got := read(db)
		if name == "mariadb shop" {
			// Petrel's CHECKSUM TABLE is its own (over the values as the
			// protocol sends them), not InnoDB's record checksum: the
			// rows themselves are compared instead.
			got.checksums = want.checksums
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s after the load: %+v, want %+v", name, got, want)
		}
	}

	// The copies behave alike: the triggers fire, the procedure answers.
	for name, db := range copies {
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		mustExec(t, ctx, conn, "INSERT INTO item VALUES (4, 'QUINCE', 3.00, NULL, NULL)")
		if got := queryString(t, ctx, conn, "SELECT CONCAT(name, ' ', (SELECT COUNT(*) FROM audit WHERE item_id = 4)) FROM item WHERE id = 4"); got != "quince 1" {
			t.Errorf("%s: trigger effects %q, want \"quince 1\"", name, got)
		}
		sets := callResultSets(t, ctx, conn, "CALL report(1.00)")
		wantSets := [][][]string{{{"id", "name"}, {"1", "apple"}, {"3", "plum"}, {"4", "quince"}}, {{"n"}, {"1"}}}
		if !reflect.DeepEqual(sets, wantSets) {
			t.Errorf("%s: CALL report(1.00) = %v, want %v", name, sets, wantSets)
		}
		// The foreign key came along: a delete cascades, an orphan is refused.
		mustExec(t, ctx, conn, "DELETE FROM item WHERE id = 1")
		if got := queryStrings(t, ctx, conn, "SELECT CONCAT_WS(':', id, IFNULL(item_id, 'null'), qty) FROM basket ORDER BY id"); !reflect.DeepEqual(got, []string{"3:3:2", "4:null:9"}) {
			t.Errorf("%s: basket after deleting item 1: %v", name, got)
		}
		if _, err := conn.ExecContext(ctx, "INSERT INTO basket VALUES (9, 99, 1)"); errNo(err) != 1452 {
			t.Errorf("%s: an orphan basket row: %v, want 1452", name, err)
		}
		conn.Close()
	}
}

// callResultSets reads every result set of q: each set's column names,
// then its rows, as text.
func callResultSets(t *testing.T, ctx context.Context, conn *sql.Conn, q string) [][][]string {
	t.Helper()
	rows, err := conn.QueryContext(ctx, q)
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
