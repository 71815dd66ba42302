package node_test

import (
	"strings"
	"testing"
)

// TestLocateByCollation: LOCATE, POSITION and INSTR answer as MySQL 8
// does under the default utf8mb4_0900_ai_ci (sqlengine/functions/
// locate.go): case- and accent-insensitive, in characters; byte-exact
// for a binary string or a _bin collation; an empty substring found at
// the start position up to one past the end (MySQL's Item_func_locate;
// MariaDB answers 0 past the end).
func TestLocateByCollation(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	got := queryRows(t, db, "SELECT INSTR('abc', 'B'), LOCATE('B', 'abc'), LOCATE('c', 'ábc'), INSTR('ábc', 'A'), POSITION('C' IN 'abc'), "+
		"LOCATE('é', 'cafe'), LOCATE('b', 'abcb', 3), LOCATE('', 'abc', 4), LOCATE('', 'abc', 5), LOCATE(2, 123), INSTR(123, 3), "+
		"LOCATE('B', BINARY 'abc'), LOCATE('b', BINARY 'abc'), INSTR('日本語テキスト', 'テ'), LOCATE('a', 'abc', 0), "+
		"LOCATE('B', 'abc' COLLATE utf8mb4_0900_bin), LOCATE('b', 'abc' COLLATE utf8mb4_0900_bin), LOCATE('x', NULL), INSTR(NULL, 'a')")
	want := "2|2|3|1|3|4|4|4|0|2|3|0|2|4|0|0|2|NULL|NULL"
	if s := strings.Join(got[0], "|"); s != want {
		t.Errorf("got  %s\nwant %s", s, want)
	}
	mustExec(t, db, "CREATE DATABASE lc", "CREATE TABLE lc.t (id INT PRIMARY KEY, s VARCHAR(20), b VARBINARY(20))",
		"INSERT INTO lc.t VALUES (1, 'Straße', 'Straße'), (2, 'ÉCOLE', 'ecole')")
	// 'e' is Straße's sixth character and its seventh byte.
	got = queryRows(t, db, "SELECT id, LOCATE('e', s), LOCATE('e', b), INSTR(b, 'E') FROM lc.t ORDER BY id")
	if s := strings.Join(got[0], "|") + ";" + strings.Join(got[1], "|"); s != "1|6|7|0;2|1|1|0" {
		t.Errorf("over columns: %s, want 1|6|7|0;2|1|1|0", s)
	}
}
