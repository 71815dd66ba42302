package sqlmode

import "testing"

// A keyword naming a column after AFTER is quoted in an ALTER TABLE, and
// only there.
func TestAfterColumns(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ALTER TABLE t ADD COLUMN score INT AFTER name", "ALTER TABLE t ADD COLUMN score INT AFTER `name`"},
		{"alter table t change z z3 int after status, add column z4 int after `date`", "alter table t change z z3 int after `status`, add column z4 int after `date`"},
		{"ALTER TABLE t MODIFY a BIGINT FIRST", "ALTER TABLE t MODIFY a BIGINT FIRST"},
		{"CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW SET @a = 1", "CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW SET @a = 1"},
		{"SELECT after FROM t", "SELECT after FROM t"},
		{"DROP TABLE x; ALTER TABLE t ADD c INT AFTER date; SELECT 1", "DROP TABLE x; ALTER TABLE t ADD c INT AFTER `date`; SELECT 1"},
	} {
		got, added := afterColumns(tc.in, false)
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
		if (got != tc.in) != (len(added) > 0) {
			t.Errorf("%q: %d insertions for %q", tc.in, len(added), got)
		}
	}
}
