package sqlengine

import (
	"testing"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

func TestCheckIdentifiersInvalidUTF8(t *testing.T) {
	for _, q := range []string{"CREATE TABLE cs.`good\xd0\xcc` (a int)", "CREATE TABLE t (`\xff` int)", "CREATE DATABASE `d\xe9`"} {
		st, err := ast.Parse(q)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if err := checkIdentifiers(st); err == nil {
			t.Errorf("%q (%T): no error", q, st)
		}
	}
}
