package sqlmode

import "testing"

// TestPipesConcat: || becomes CONCAT over MySQL's operands (the
// precedence between ^ and the unary operators), and every offset of the
// rewrite maps back to the original text.
func TestPipesConcat(t *testing.T) {
	for q, want := range map[string]string{
		"SELECT 'a' || 'b'":                         "SELECT CONCAT('a' ,  'b')",
		"SELECT a || b || c FROM t":                 "SELECT CONCAT(a ,  b ,  c) FROM t",
		"SELECT 1 + 2 || 3":                         "SELECT 1 + CONCAT(2 ,  3)",
		"SELECT -1 || 2, x - y || z":                "SELECT CONCAT(-1 ,  2), x - CONCAT(y ,  z)",
		"SELECT UPPER(a) || t.b || `c d` FROM t":    "SELECT CONCAT(UPPER(a) ,  t.b ,  `c d`) FROM t",
		"SELECT (a || b) || c":                      "SELECT CONCAT((CONCAT(a ,  b)) ,  c)",
		"SELECT X'41' || _utf8mb4'b' COLLATE x_bin": "SELECT CONCAT(X'41' ,  _utf8mb4'b' COLLATE x_bin)",
		"SELECT @v || ? || 'x'":                     "SELECT CONCAT(@v ,  ? ,  'x')",
		"SELECT CASE WHEN a THEN 'x' END || 'y'":    "SELECT CONCAT(CASE WHEN a THEN 'x' END ,  'y')",
		"SELECT 'a||b', '-- ||' /* || */":           "SELECT 'a||b', '-- ||' /* || */",
		"SELECT a FROM t WHERE b || 'x' = 'ax'":     "SELECT a FROM t WHERE CONCAT(b ,  'x') = 'ax'",
		"SELECT ||":                                 "SELECT ||",
	} {
		got, added := pipesConcat(q, false)
		if got != want {
			t.Errorf("pipesConcat(%q) = %q, want %q", q, got, want)
			continue
		}
		if len(got)-len(added) != len(q) {
			t.Errorf("%q: %d bytes added, text grew by %d", q, len(added), len(got)-len(q))
		}
		if OriginalOffset(len(got), added) != len(q) {
			t.Errorf("%q: the end maps to %d, not %d", q, OriginalOffset(len(got), added), len(q))
		}
	}
}

// TestHighNot: a prefix NOT takes !'s place; NOT after an operand, IS
// NOT and IF NOT EXISTS stay.
func TestHighNot(t *testing.T) {
	for q, want := range map[string]string{
		"SELECT NOT 1 BETWEEN 2 AND 3":                          "SELECT !   1 BETWEEN 2 AND 3",
		"SELECT * FROM t WHERE NOT a = 1 AND NOT b":             "SELECT * FROM t WHERE !   a = 1 AND !   b",
		"SELECT a NOT IN (1), b IS NOT NULL FROM t":             "SELECT a NOT IN (1), b IS NOT NULL FROM t",
		"CREATE TABLE IF NOT EXISTS t (a INT NOT NULL)":         "CREATE TABLE IF NOT EXISTS t (a INT NOT NULL)",
		"SELECT (NOT 0) + 1, 'NOT' FROM t WHERE x NOT LIKE 'a'": "SELECT (!   0) + 1, 'NOT' FROM t WHERE x NOT LIKE 'a'",
	} {
		if got := highNot(q, false); got != want {
			t.Errorf("highNot(%q) = %q, want %q", q, got, want)
		}
	}
}
