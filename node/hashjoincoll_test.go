package node_test

import (
	"strings"
	"testing"
)

// A hash join meets strings its collation finds equal, as the join's
// condition and MySQL do: 'A' and 'a' under a case-insensitive collation,
// 'b' and 'b ' under a PAD SPACE one, on one column and on two. GMS
// keyed a single column's lookup by its bytes: a self-join of CHAR(1)
// in utf8mb4_0900_ai_ci returned 9 of its 14 pairs (mtr's ctype_ascii,
// in ascii_general_ci, found it).
func TestHashJoinMeetsCollationEquals(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE hj",
		"CREATE TABLE hj.u (a CHAR(1), n INT)",
		"CREATE TABLE hj.asc1 (a CHAR(1) CHARACTER SET ascii, n INT)",
		"CREATE TABLE hj.pad (a VARCHAR(3) COLLATE utf8mb4_general_ci, n INT)")
	for _, tb := range []string{"hj.u", "hj.asc1"} {
		mustExec(t, db, "INSERT INTO "+tb+" VALUES ('a', 1), ('A', 1), ('b', 2), ('B', 2), (' ', 3), ('1', 3), ('z', 4), ('Z', 5)")
	}
	mustExec(t, db, "INSERT INTO hj.pad VALUES ('b', 1), ('b ', 1), ('B  ', 1), ('c', 2)")
	for _, tc := range []struct {
		q    string
		want string
	}{
		// a/A, b/B and z/Z: 4 pairs each; ' ' and '1': 1 each.
		{"SELECT /*+ HASH_JOIN(x, y) */ COUNT(*) FROM hj.u x JOIN hj.u y ON x.a = y.a", "14"},
		{"SELECT /*+ HASH_JOIN(x, y) */ COUNT(*) FROM hj.asc1 x JOIN hj.asc1 y ON x.a = y.a", "14"},
		// Two columns: z/Z differ in n.
		{"SELECT /*+ HASH_JOIN(x, y) */ COUNT(*) FROM hj.u x JOIN hj.u y ON x.a = y.a AND x.n = y.n", "12"},
		// PAD SPACE: 'b', 'b ' and 'B  ' are one value.
		{"SELECT /*+ HASH_JOIN(x, y) */ COUNT(*) FROM hj.pad x JOIN hj.pad y ON x.a = y.a", "10"},
		{"SELECT /*+ HASH_JOIN(x, y) */ COUNT(*) FROM hj.pad x JOIN hj.pad y ON x.a = y.a AND x.n = y.n", "10"},
	} {
		var lines []string
		for _, r := range queryRows(t, db, "EXPLAIN FORMAT=TREE "+tc.q) {
			lines = append(lines, r...)
		}
		plan := strings.Join(lines, "\n")
		if !strings.Contains(plan, "HashLookup") {
			t.Fatalf("%s: not a hash join: %s", tc.q, plan)
		}
		if got := queryRows(t, db, tc.q)[0][0]; got != tc.want {
			t.Errorf("%s: %s rows, want %s", tc.q, got, tc.want)
		}
	}
}

// UNION, INTERSECT and EXCEPT (DISTINCT) tell strings apart by their
// collation, as MySQL does: 'a' and 'A' are one row under
// utf8mb4_0900_ai_ci, 'b' and 'b ' under a PAD SPACE collation. GMS
// hashed the bytes (SELECT 'a' UNION SELECT 'A' was two rows). The first
// row of each group is kept; ORDER BY, OFFSET and LIMIT apply to the
// result.
func TestSetOperationsMeetCollationEquals(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE so",
		"CREATE TABLE so.u (a CHAR(1), n INT)",
		"CREATE TABLE so.pad (a VARCHAR(3) COLLATE utf8mb4_general_ci)",
		"INSERT INTO so.u VALUES ('a', 1), ('A', 1), ('b', 2), ('B', 2), (' ', 3), ('1', 3), ('z', 4), ('Z', 5)",
		"INSERT INTO so.pad VALUES ('b'), ('b '), ('B  '), ('c')")
	for _, tc := range []struct {
		q    string
		want string
	}{
		{"SELECT COUNT(*) FROM (SELECT a FROM so.u UNION SELECT a FROM so.u) x", "5"},
		{"SELECT COUNT(*) FROM (SELECT 'a' x UNION SELECT 'A') y", "1"},
		{"SELECT COUNT(*) FROM (SELECT a FROM so.pad UNION SELECT a FROM so.pad) x", "2"},
		{"SELECT COUNT(*) FROM (SELECT a FROM so.u INTERSECT SELECT a FROM so.u) x", "5"},
		{"SELECT GROUP_CONCAT(a ORDER BY a) FROM (SELECT a FROM so.u INTERSECT SELECT a FROM so.u WHERE a = 'B') x", "b"},
		// ' ' in a CHAR column reads back as ''.
		{"SELECT GROUP_CONCAT(a ORDER BY a) FROM (SELECT a FROM so.u EXCEPT SELECT a FROM so.u WHERE a IN ('A', 'z')) x", ",1,b"},
		// Two columns: z/Z differ in n.
		{"SELECT COUNT(*) FROM (SELECT a, n FROM so.u UNION SELECT a, n FROM so.u) x", "6"},
		// ORDER BY, OFFSET and LIMIT over the distinct rows.
		{"SELECT GROUP_CONCAT(a ORDER BY a) FROM (SELECT a FROM so.u UNION SELECT a FROM so.u ORDER BY a LIMIT 2 OFFSET 1) x", "1,a"},
		// UNION ALL keeps every row.
		{"SELECT COUNT(*) FROM (SELECT a FROM so.u UNION ALL SELECT a FROM so.u) x", "16"},
	} {
		if got := queryRows(t, db, tc.q)[0][0]; got != tc.want {
			t.Errorf("%s: %s, want %s", tc.q, got, tc.want)
		}
	}
}
