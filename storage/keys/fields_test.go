package keys

import (
	"errors"
	"math/rand"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
)

// fieldSchema is fuzzSchema's integer and text columns.
func fieldSchema() sql.Schema {
	var sch sql.Schema
	for _, c := range fuzzSchema() {
		if KindOfField(c.Type) != FieldNone {
			sch = append(sch, c)
		}
	}
	return sch
}

// sameAsRow reports whether the decoded fields hold row's values: an
// integer for integers, the stored bytes for text, NULL for nil.
func sameAsRow(t testing.TB, sch sql.Schema, want []bool, fields []Field, row sql.Row) {
	t.Helper()
	for i, c := range sch {
		if !want[i] {
			continue
		}
		f, v := fields[i], row[i]
		if f.Null != (v == nil) {
			t.Fatalf("column %s: NULL %v, DecodeRow's %v", c.Name, f.Null, v)
		}
		if v == nil {
			continue
		}
		var ok bool
		switch KindOfField(c.Type) {
		case FieldInt:
			ok = fieldInt(v) == f.Int
		case FieldUint:
			ok = fieldUint(v) == f.Uint
		case FieldBytes:
			ok = v.(string) == string(f.Bytes)
		}
		if !ok {
			t.Fatalf("column %s (%s): field %+v, DecodeRow's %v", c.Name, c.Type, f, v)
		}
	}
}

func fieldInt(v any) int64 {
	switch x := v.(type) {
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	}
	return -1 << 63
}

func fieldUint(v any) uint64 {
	switch x := v.(type) {
	case uint8:
		return uint64(x)
	case uint16:
		return uint64(x)
	case uint32:
		return uint64(x)
	case uint64:
		return x
	}
	return 1<<64 - 1
}

// randomRow is a row of sch with a random value of each column's type
// (from cases), NULL one time in nullOneIn.
func randomRow(t testing.TB, r *rand.Rand, sch sql.Schema, cases []typeCase, nullOneIn int) sql.Row {
	row := make(sql.Row, len(sch))
	for i, c := range sch {
		if r.Intn(nullOneIn) == 0 {
			continue
		}
		for _, tc := range cases {
			if tc.typ == c.Type {
				row[i] = mustConvert(t, tc.typ, tc.gen(r))
			}
		}
	}
	return row
}

// TestFieldDecoder: FieldDecoder reads what DecodeRow reads, for every
// integer and text type with random values and NULLs, every column or
// a few; a wanted column of another type has no decoder; a short or
// damaged row is ErrCorrupt.
func TestFieldDecoder(t *testing.T) {
	full := fuzzSchema()
	sch := fieldSchema()
	if len(sch) < 10 {
		t.Fatalf("only %d integer and text types", len(sch))
	}
	cases := allTypeCases()
	r := rand.New(rand.NewSource(7))
	wantAll := make([]bool, len(sch))
	wantSome := make([]bool, len(sch))
	for i := range wantAll {
		wantAll[i], wantSome[i] = true, i%3 == 1
	}
	for n := 0; n < 200; n++ {
		row := randomRow(t, r, sch, cases, 4)
		enc, err := EncodeRow(nil, sch, row)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range [][]bool{wantAll, wantSome} {
			d, ok := NewFieldDecoder(sch, want)
			if !ok {
				t.Fatal("no decoder for integer and text columns")
			}
			fields := make([]Field, len(sch))
			if err := d.Decode(fields, enc); err != nil {
				t.Fatal(err)
			}
			sameAsRow(t, sch, want, fields, row)
			for cut := 0; cut < len(enc); cut += 1 + len(enc)/7 {
				if err := d.Decode(fields, enc[:cut]); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("a row cut to %d of %d bytes: %v, want ErrCorrupt", cut, len(enc), err)
				}
			}
		}
	}
	want := make([]bool, len(full))
	for i, c := range full {
		want[i] = KindOfField(c.Type) == FieldNone
	}
	if _, ok := NewFieldDecoder(full, want); ok {
		t.Fatal("a decoder for columns of other types")
	}
}

// FuzzFieldDecoder: on any bytes FieldDecoder fails exactly when
// DecodeRow does (with ErrCorrupt), and agrees with it otherwise.
func FuzzFieldDecoder(f *testing.F) {
	sch := fieldSchema()
	cases := allTypeCases()
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 20; n++ {
		enc, err := EncodeRow(nil, sch, randomRow(f, r, sch, cases, 3))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(enc)
		f.Add(enc[:len(enc)/2])
	}
	f.Add([]byte{})
	f.Add([]byte{rowFormatV1, 0})
	want := make([]bool, len(sch))
	for i := range want {
		want[i] = true
	}
	d, ok := NewFieldDecoder(sch, want)
	if !ok {
		f.Fatal("no decoder")
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fields := make([]Field, len(sch))
		ferr := d.Decode(fields, data)
		row, rerr := DecodeRow(data, sch)
		if (ferr != nil) != (rerr != nil) {
			t.Fatalf("FieldDecoder %v, DecodeRow %v", ferr, rerr)
		}
		if ferr != nil {
			if !errors.Is(ferr, ErrCorrupt) {
				t.Fatalf("error does not wrap ErrCorrupt: %v", ferr)
			}
			return
		}
		sameAsRow(t, sch, want, fields, row)
	})
}
