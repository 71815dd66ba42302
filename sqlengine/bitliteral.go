package sqlengine

import (
	"encoding/hex"
	"math/big"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// A bit-value literal, b'101' (and 0b101, which sqlmode/bitliteral.go
// writes so), is a binary string in MySQL, as a hexadecimal literal is:
// b'101' is the byte 0x05 (HEX(b'101') is '05', b'1000001' = 'A'), a
// number only in numeric context (b'101' + 0 is 5), VARBINARY in
// CREATE TABLE ... SELECT. GMS made it a BIGINT UNSIGNED (HEX gave '5',
// a VARBINARY column stored '65'). The parse tree holds it as the
// hexadecimal literal of its bytes, which Petrel already reads as MySQL
// does, numeric context included (arith/hexcmp.go).

// bitLiterals writes each bit-value literal of stmt as the hexadecimal
// literal of the same bytes: the bits left-padded to whole bytes; b”
// is the empty string.
func bitLiterals(stmt ast.Statement) {
	if stmt == nil {
		return
	}
	walkStatement(stmt, func(n ast.SQLNode) (bool, error) {
		v, ok := n.(*ast.SQLVal)
		if !ok || v == nil || v.Type != ast.BitVal {
			// (A statement's absent value is a nil *SQLVal: LOAD DATA's.)
			return true, nil
		}
		b, ok := bitBytes(string(v.Val))
		if !ok {
			return true, nil // GMS's error, as before
		}
		v.Type, v.Val = ast.HexVal, []byte(hex.EncodeToString(b))
		return true, nil
	})
}

// bitBytes is the big-endian bytes of the binary digits s, as many as
// its digits fill (8 a byte, rounded up).
func bitBytes(s string) ([]byte, bool) {
	if s == "" {
		return []byte{}, true
	}
	n, ok := new(big.Int).SetString(s, 2)
	if !ok {
		return nil, false
	}
	out := make([]byte, (len(s)+7)/8)
	return n.FillBytes(out), true
}

// walkStatement is ast.Walk over stmt and, vitess's Walk skipping it,
// the SELECT of a CREATE TABLE ... SELECT.
func walkStatement(stmt ast.Statement, visit ast.Visit) {
	_ = ast.Walk(visit, stmt)
	if d, ok := stmt.(*ast.DDL); ok && d.OptSelect != nil && d.OptSelect.Select != nil {
		_ = ast.Walk(visit, d.OptSelect.Select)
	}
}
