package sqlmode

import "testing"

func TestTableAliasKeywordsQuoted(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"select first.a, second.a from t1 first, t1 second where first.a = second.a", "select `first`.a, second.a from t1 `first`, t1 second where `first`.a = second.a"},
		{"SELECT * FROM test.t1 AS view JOIN t2 next ON view.a = next.a", "SELECT * FROM test.t1 AS `view` JOIN t2 `next` ON `view`.a = `next`.a"},
		{"SELECT * FROM (SELECT 1 a) format", "SELECT * FROM (SELECT 1 a) `format`"},
		{"UPDATE t1 comment SET comment.a = 1", "UPDATE t1 `comment` SET `comment`.a = 1"},
		// The words' own syntax is left alone.
		{"ALTER TABLE t ADD c INT FIRST", ""},
		{"ALTER TABLE t MODIFY c CHAR(2) FIRST, MODIFY e ENUM('a') FIRST", ""},
		{"ALTER TABLE t1 COMMENT 'x'", ""},
		{"CREATE TABLE t (a INT) COMMENT = 'x'", ""},
		{"HANDLER t1 READ i FIRST", ""},
		{"SELECT a first FROM t", ""},
		{"SELECT 'from t1 first'", ""},
	} {
		got, added := tableAliases(tc.q, false)
		checkInsertions(t, tc.q, tc.want, got, added) // quantified_internal_test.go
	}
}
