package node_test

import (
	"reflect"
	"testing"
)

// The -> and ->> operators over documents of mixed shapes answer as
// JSON_EXTRACT: NULL where the path matches nothing, [0] of a
// non-array the value itself (GMS failed the whole statement with 1105
// "failed to extract from expression" at the first row of another
// shape). MariaDB has no ->, so e2e's differential run checks
// JSON_EXTRACT, and this test the operators over the same rows.
func TestJSONArrowMixedDocuments(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE ja", "USE ja",
		"CREATE TABLE j (id INT PRIMARY KEY, doc JSON)",
		`INSERT INTO j VALUES (1, '{"a": 1, "b": [1, 2, {"c": "x"}]}'), (2, '[3, "3", 4]'), (3, '"str"'), (4, NULL)`)
	got := queryRows(t, db, "SELECT id, IFNULL(CAST(doc->'$.a' AS CHAR), 'none'), IFNULL(doc->>'$.b[2].c', 'none'), IFNULL(CAST(doc->'$[0]' AS CHAR), 'none'), IFNULL(CAST(doc->'$[last]' AS CHAR), 'none') FROM ja.j ORDER BY id")
	want := [][]string{
		{"1", "1", "x", `{"a": 1, "b": [1, 2, {"c": "x"}]}`, `{"a": 1, "b": [1, 2, {"c": "x"}]}`},
		{"2", "none", "none", "3", "4"},
		{"3", "none", "none", `"str"`, `"str"`},
		{"4", "none", "none", "none", "none"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("-> over mixed documents:\n got  %q\n want %q", got, want)
	}
	if got := queryRows(t, db, "SELECT COUNT(*) FROM ja.j WHERE doc->'$[0]' = 3"); got[0][0] != "1" {
		t.Fatalf("WHERE doc->'$[0]' = 3 counted %s rows, want 1", got[0][0])
	}
}
