package sqlengine

import (
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// TestDecodeText checks how a latin1 client's statement text becomes
// UTF-8: every byte decoded, except the bytes of literals with a character
// set introducer, which GMS reads as the introducer says.
func TestDecodeText(t *testing.T) {
	cc := codecFor(sql.CharacterSet_latin1)
	if cc.table == nil {
		t.Fatal("latin1 has no decoding table")
	}
	for _, tc := range []struct{ in, want string }{
		{"SELECT 'abc'", "SELECT 'abc'"},
		{"SELECT '\xe9'", "SELECT 'é'"},
		{"SELECT `t\xe9`.c FROM `t\xe9`", "SELECT `té`.c FROM `té`"},
		{"SELECT _binary'\xe9\xff', '\xe9'", "SELECT _binary'\xe9\xff', 'é'"},
		{"SELECT _binary '\xe9' , _utf8mb4'\xc3\xa9'", "SELECT _binary '\xe9' , _utf8mb4'\xc3\xa9'"},
		{"SELECT _latin1'\xe9'", "SELECT _latin1'\xe9'"},
		{"SELECT x_binary '\xe9'", "SELECT x_binary 'é'"}, // not an introducer
		{"SELECT _binary'it''s \xe9', '\xe9'", "SELECT _binary'it''s \xe9', 'é'"},
		{"SELECT _binary'a\\'\xe9', '\xe9'", "SELECT _binary'a\\'\xe9', 'é'"},
		{"SELECT \"\xe9\" -- _binary'\xe9\n", "SELECT \"é\" -- _binary'é\n"},
		{"SELECT 1 /* _binary'\xe9' */, '\xe9'", "SELECT 1 /* _binary'é' */, 'é'"},
		{"SELECT '\x80\xa4'", "SELECT '€¤'"}, // latin1 is cp1252
	} {
		d, err := cc.decodeText(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if d.text != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, d.text, tc.want)
		}
	}
	// A byte that is no character of the client's set: error 1300, as
	// MySQL (latin1 defines all 256; a table with a hole stands in).
	holed := &clientCodec{cs: cc.cs, table: new(byteTable)}
	*holed.table = *cc.table
	holed.table[0x81-0x80] = ""
	if _, err := holed.decodeText("SELECT '\x81'"); err == nil || err.(*mysql.SQLError).Num != 1300 {
		t.Errorf("undefined byte: %v, want error 1300", err)
	}
	// UTF-8 clients are passed through untouched, valid or not.
	if d, err := passthrough.decodeText("SELECT '\xe9'"); err != nil || d.text != "SELECT '\xe9'" {
		t.Errorf("passthrough: %q %v", d.text, err)
	}
}

// TestDecodedOriginal checks the map from a suffix of the decoded text
// back to the original (multi-statement remainders).
func TestDecodedOriginal(t *testing.T) {
	cc := codecFor(sql.CharacterSet_latin1)
	in := "INSERT INTO t VALUES ('\xe9\xe8'); SELECT _binary'\xe9\xe9'; SELECT '\xe0'; SELECT 1"
	d, err := cc.decodeText(in)
	if err != nil {
		t.Fatal(err)
	}
	// Every statement boundary maps back to the same place in the original.
	for i := range len(d.text) {
		if d.text[i] != ';' {
			continue
		}
		orig := d.original(cc, d.text[i:])
		if j := strings.Index(in, orig); j < 0 || !strings.HasSuffix(in, orig) || orig[0] != ';' {
			t.Fatalf("remainder %q maps to %q", d.text[i:], orig)
		}
		back, err := cc.decodeText(orig)
		if err != nil || back.text != d.text[i:] {
			t.Errorf("remainder %q: original %q decodes to %q (%v)", d.text[i:], orig, back.text, err)
		}
	}
	for _, tc := range []struct{ restPrefix, want string }{
		{" SELECT _binary", " SELECT _binary'\xe9\xe9'; SELECT '\xe0'; SELECT 1"},
		{" SELECT 'à'", " SELECT '\xe0'; SELECT 1"},
		{" SELECT 1", " SELECT 1"},
	} {
		i := strings.Index(d.text, tc.restPrefix)
		if got := d.original(cc, d.text[i:]); got != tc.want {
			t.Errorf("remainder %q: original %q, want %q", d.text[i:], got, tc.want)
		}
	}
}

// TestDecodeBindVars: string parameters (STRING, VAR_STRING, VARCHAR) are
// decoded, BLOB-typed ones are binary.
func TestDecodeBindVars(t *testing.T) {
	cc := codecFor(sql.CharacterSet_latin1)
	p := &mysql.PrepareData{
		ParamsType: []int32{int32(sqltypes.Char), int32(sqltypes.Text), int32(sqltypes.VarChar), int32(sqltypes.Int64)},
		BindVars: map[string]*querypb.BindVariable{
			"v1": {Type: sqltypes.VarBinary, Value: []byte("\xe9")},
			"v2": {Type: sqltypes.VarBinary, Value: []byte("\xe9")},
			"v3": {Type: sqltypes.VarBinary, Value: []byte("abc")},
			"v4": {Type: sqltypes.Int64, Value: []byte("7")},
		},
	}
	orig := p.BindVars["v1"]
	if err := cc.decodeBindVars(p); err != nil {
		t.Fatal(err)
	}
	got := []string{string(p.BindVars["v1"].Value), string(p.BindVars["v2"].Value), string(p.BindVars["v3"].Value), string(p.BindVars["v4"].Value)}
	if strings.Join(got, "|") != "é|\xe9|abc|7" {
		t.Errorf("decoded parameters: %q", got)
	}
	if string(orig.Value) != "\xe9" {
		t.Errorf("the original bind variable was modified in place")
	}
}

// TestClientCapable lists the character sets clients may use.
func TestClientCapable(t *testing.T) {
	for _, cs := range []sql.CharacterSetID{sql.CharacterSet_utf8mb4, sql.CharacterSet_utf8mb3, sql.CharacterSet_ascii,
		sql.CharacterSet_binary, sql.CharacterSet_latin1, sql.CharacterSet_cp1256, sql.CharacterSet_cp1257, sql.CharacterSet_latin7} {
		if !clientCapable(cs) {
			t.Errorf("%s refused as a client character set", cs.Name())
		}
	}
	for _, cs := range []sql.CharacterSetID{sql.CharacterSet_utf16, sql.CharacterSet_utf32, sql.CharacterSet_ucs2,
		sql.CharacterSet_swe7, sql.CharacterSet_gbk, sql.CharacterSet_sjis} {
		if clientCapable(cs) {
			t.Errorf("%s accepted as a client character set", cs.Name())
		}
	}
}
