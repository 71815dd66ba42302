package sqlmode

import "testing"

func TestQuantifiedAndWideIdentifiers(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"SELECT * FROM t WHERE a=ALL (SELECT 0)", "SELECT * FROM t WHERE a=petrel_q_ALL ((SELECT 0))"},
		{"SELECT a >= any(select b from u where (b) > 1), 1 <> SOME ( WITH c AS (SELECT 1) SELECT * FROM c)",
			"SELECT a >= petrel_q_any((select b from u where (b) > 1)), 1 <> petrel_q_SOME (( WITH c AS (SELECT 1) SELECT * FROM c))"},
		{"SELECT a > ALL ((SELECT 1) UNION (SELECT 2))", "SELECT a > petrel_q_ALL (((SELECT 1) UNION (SELECT 2)))"},
		// UNION ALL, an aggregate's ALL, a list and text stay as they are.
		{"SELECT 1 UNION ALL (SELECT 2)", ""},
		{"SELECT SUM(ALL a), COUNT(ALL (a)) FROM t", ""},
		{"SELECT a = ALL (1, 2)", ""},
		{"SELECT 'a = ALL (SELECT 1)', `x` = `ALL`", ""},
		// Identifiers of characters past ASCII are quoted; text is not.
		{"CREATE TABLE таблица (колонка INT, ünï INT)", "CREATE TABLE `таблица` (`колонка` INT, `ünï` INT)"},
		{"SELECT d.колонка AS алиас FROM d.таблица WHERE s = 'текст' AND `уже` = 1", "SELECT d.`колонка` AS `алиас` FROM d.`таблица` WHERE s = 'текст' AND `уже` = 1"},
		{"SELECT имя = ANY (SELECT имя FROM t)", "SELECT `имя` = petrel_q_ANY ((SELECT `имя` FROM t))"},
	} {
		got, added := quantified(tc.q, false)
		checkInsertions(t, tc.q, tc.want, got, added)
	}
}

// checkInsertions checks a text rewrite of q that only inserts: got is
// want (q itself when want is empty), added names every inserted byte,
// and removing those gives q back.
func checkInsertions(t *testing.T, q, want, got string, added []int) {
	t.Helper()
	if want == "" {
		want = q
	}
	if got != want {
		t.Errorf("%s:\n got %s\nwant %s", q, got, want)
	}
	if len(added) != len(got)-len(q) {
		t.Errorf("%s: %d offsets for %d bytes added", q, len(added), len(got)-len(q))
	}
	drop := map[int]bool{}
	for _, a := range added {
		drop[a] = true
	}
	var back []byte
	for i := 0; i < len(got); i++ {
		if !drop[i] {
			back = append(back, got[i])
		}
	}
	if string(back) != q {
		t.Errorf("%s: without the added bytes: %s", q, back)
	}
}

func TestSubstringFromCompleted(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"SELECT SUBSTRING('abc' FROM 2), substr(s from -1) FROM t", "SELECT SUBSTRING('abc' FROM 2 FOR 4294967295), substr(s from -1 FOR 4294967295) FROM t"},
		{"SELECT SUBSTRING(s FROM (SELECT 1 FROM u) FOR 2), SUBSTRING(s, 2), SUBSTRING('FROM x')", ""},
		{"SELECT SUBSTRING((SELECT a FROM u) FROM 2)", "SELECT SUBSTRING((SELECT a FROM u) FROM 2 FOR 4294967295)"},
	} {
		got, added := substringFrom(tc.q, false)
		checkInsertions(t, tc.q, tc.want, got, added)
	}
}
