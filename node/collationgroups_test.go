package node_test

import (
	"reflect"
	"testing"
)

// DISTINCT, COUNT(DISTINCT) and GROUP BY tell strings apart by their
// collation, as MySQL: 'A' and 'a' are one value under a case-insensitive
// collation, 'b' and 'b ' one value under a PAD SPACE collation
// (utf8mb4_general_ci), and each group shows its first row's value.
func TestCollationGroups(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE cg",
		"CREATE TABLE cg.t (id INT PRIMARY KEY, s VARCHAR(10) COLLATE utf8mb4_general_ci, u VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, b VARCHAR(10) COLLATE utf8mb4_0900_bin)",
		"INSERT INTO cg.t VALUES (1, 'A', 'A', 'A'), (2, 'a', 'a', 'a'), (3, 'b', 'b', 'b'), (4, 'B ', 'B ', 'B '), (5, 'c', 'c', 'c')")
	for _, tc := range []struct {
		q    string
		want [][]string
	}{
		{"SELECT COUNT(DISTINCT s) FROM cg.t", [][]string{{"3"}}},
		{"SELECT COUNT(DISTINCT u) FROM cg.t", [][]string{{"4"}}}, // 0900: NO PAD, 'B ' <> 'b'
		{"SELECT COUNT(DISTINCT b) FROM cg.t", [][]string{{"5"}}}, // binary collation
		{"SELECT COUNT(*) FROM (SELECT DISTINCT s FROM cg.t) d", [][]string{{"3"}}},
		{"SELECT DISTINCT s FROM cg.t ORDER BY id", [][]string{{"A"}, {"b"}, {"c"}}},
		{"SELECT s, COUNT(*) FROM cg.t GROUP BY s ORDER BY MIN(id)", [][]string{{"A", "2"}, {"b", "2"}, {"c", "1"}}},
		{"SELECT u, COUNT(*) FROM cg.t GROUP BY u ORDER BY MIN(id)", [][]string{{"A", "2"}, {"b", "1"}, {"B ", "1"}, {"c", "1"}}},
	} {
		if got := queryRows(t, db, tc.q); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.q, got, tc.want)
		}
	}
}
