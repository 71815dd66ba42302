package rowenc

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	vtmysql "github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"
)

// TestVitessCrossCheck decodes every sample value with vitess's binlog row
// decoder (mysql.CellValue), an implementation independent of this one, and
// compares sizes and values. It is the only external check for JSON, which
// mariadb-binlog cannot print.
func TestVitessCrossCheck(t *testing.T) {
	jsonWant := map[string]string{
		`{"a": 1, "b": [true, null, "x"], "nested": {"k": -2.5}}`:                 `JSON_OBJECT('a',1,'b',JSON_ARRAY(true,null,'x'),'nested',JSON_OBJECT('k',-2.5E+00))`,
		`[1, -70000, 4294967296, 18446744073709551615, 1.25, "s", false, [], {}]`: `JSON_ARRAY(1,-70000,4294967296,1.8446744073709552E+19,1.25E+00,'s',false,JSON_ARRAY(),JSON_OBJECT())`,
		`"just a string"`: `'"just a string"'`,
		`12345`:           `'12345'`,
		`-1.5e300`:        `'-1.5E+300'`,
		`null`:            `'null'`,
		`true`:            `'true'`,
		`false`:           `'false'`,
	}
	for _, tc := range typeCases() {
		c := columnFor(t, tc, true)
		for _, x := range tc.inputs {
			v := convertInput(t, tc, x)
			b, err := AppendValue(nil, c, v)
			if err != nil {
				t.Fatal(err)
			}
			label := fmt.Sprintf("%s %.40v", tc.name, x)
			if c.Type == TypeJSON {
				doc := b[4:]
				got, err := vtmysql.ConvertBinaryJSONToSQL(doc)
				if err != nil {
					t.Errorf("%s: vitess: %v", label, err)
				} else if want, ok := jsonWant[fmt.Sprint(x)]; !ok || got != want {
					t.Errorf("%s: vitess reads %s, want %s", label, got, want)
				}
				continue
			}
			vv, n, err := vtmysql.CellValue(b, 0, c.Type, c.Meta, tc.typ.Type())
			if err != nil {
				t.Errorf("%s: vitess: %v", label, err)
				continue
			}
			if n != len(b) {
				t.Errorf("%s: vitess consumed %d bytes, we wrote %d", label, n, len(b))
			}
			g, _, err := DecodeValue(b, c, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !vitessAgrees(c, vv, g) {
				t.Errorf("%s: vitess reads %q, we read %#v", label, vv.ToString(), g)
			}
		}
	}
}

func vitessAgrees(c Column, vv sqltypes.Value, g any) bool {
	vs := vv.ToString()
	vb := []byte(vs)
	switch c.Type {
	case TypeTiny, TypeShort, TypeInt24, TypeLong, TypeLongLong, TypeString:
		switch c.RealType() {
		case TypeString:
			// vitess pads BINARY with NULs to the column length.
			if c.Charset == CollationBinary {
				vb = bytes.TrimRight(vb, "\x00")
			}
			return bytesOf(g) == string(vb)
		}
		return fmt.Sprint(g) == vs
	case TypeNewDecimal:
		// vitess prints zero groups oddly (".00", "        0"); compare values.
		d1, err1 := decimal.NewFromString(strings.ReplaceAll(vs, " ", ""))
		d2, err2 := decimal.NewFromString(g.(string))
		return err1 == nil && err2 == nil && d1.Equal(d2)
	case TypeFloat, TypeDouble:
		f, err := strconv.ParseFloat(vs, 64)
		if c.Type == TypeFloat {
			f = float64(float32(f))
		}
		return err == nil && f == g.(float64)
	case TypeVarchar, TypeBlob, TypeGeometry:
		if enc := transcoder(c.Charset); enc != nil {
			raw, _ := enc.Encode([]byte(g.(string)))
			return string(raw) == vs
		}
		return bytesOf(g) == vs
	case TypeYear:
		y, err := strconv.Atoi(vs)
		return err == nil && int64(y) == g.(int64)
	case TypeBit:
		var u uint64
		for _, x := range vb {
			u = u<<8 | uint64(x)
		}
		return u == g.(uint64)
	case TypeDate, TypeDatetime2, TypeTimestamp2, TypeTime2:
		return vs == g.(string)
	}
	return false
}

func bytesOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}
