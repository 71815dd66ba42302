package proxy

import (
	"strings"
	"testing"
)

// TestClassCache: a cached classification is the parser's own for every
// statement of testdata/classify, asked twice and with other literals;
// statements whose literals decide their kind are not shared.
func TestClassCache(t *testing.T) {
	var c classCache
	for _, q := range []string{
		"select 1", "SELECT * FROM t WHERE id = 5", "insert into t values (1)", "select /* petrel_read=primary */ * from t",
		"set autocommit = 1", "set autocommit = 0", "set petrel_read_mode = 'any'", "set petrel_read_mode = 'primary'",
		"select * from t for update", "select 'insert into t values (1)' from t", "select 1; select 2", "begin", "commit",
		"use db1", "use db2", "select last_insert_id()", "select get_lock('x', 1)",
	} {
		for range 2 {
			if got, want := c.classify(q), Classify(q); !same(got, want) {
				t.Fatalf("%q: cached %+v, parsed %+v", q, got, want)
			}
		}
	}
	// A hint is a comment, and comments are part of the shape.
	for _, m := range []string{"primary", "any", "primary"} {
		if st := c.classify("select /* petrel_read=" + m + " */ 1"); st.Hint == nil || st.Hint.String() != m {
			t.Fatalf("hint %s classified as %+v", m, st)
		}
	}
	// Literals do not split shapes; structure does.
	a, _ := shapeKey("SELECT c FROM sbtest1 WHERE id=4711")
	b, _ := shapeKey("SELECT c FROM sbtest1 WHERE id=12")
	d, _ := shapeKey("SELECT c FROM sbtest1 WHERE id=12 FOR UPDATE")
	e, _ := shapeKey("SELECT c FROM sbtest1 WHERE id='12'")
	if a != b || a == d || a == e {
		t.Fatal("shape keys: literals split them, or structure did not")
	}
	if _, ok := shapeKey("SELECT " + strings.Repeat("1,", maxShapeTokens) + "1"); ok {
		t.Fatal("a statement past maxShapeTokens got a key")
	}
}

func same(a, b Statement) bool {
	if (a.Hint == nil) != (b.Hint == nil) || (a.Hint != nil && *a.Hint != *b.Hint) {
		return false
	}
	a.Hint, b.Hint = nil, nil
	ae, be := a.Err, b.Err
	a.Err, b.Err = nil, nil
	return a == b && (ae == nil) == (be == nil)
}

func BenchmarkClassify(b *testing.B) {
	b.Run("parse", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			Classify("SELECT c FROM sbtest1 WHERE id=4711")
		}
	})
	b.Run("cached", func(b *testing.B) {
		var c classCache
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			c.classify("SELECT c FROM sbtest1 WHERE id=4711")
		}
	})
}
