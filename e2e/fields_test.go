package e2e

import (
	"database/sql"
	"math"
	"reflect"
	"testing"
	"time"

	"petrel/lab"
)

// TestColumnMetadata checks the column definitions drivers read, as
// go-sql-driver's ColumnTypes reports them, in the text and the binary
// protocol: a BIT column has the binary character set (it scans as bytes,
// not a string), FLOAT and DOUBLE with no declared scale report MySQL's
// NOT_FIXED_DEC (an unbounded scale), YEAR is UNSIGNED (scans as uint16),
// DECIMAL and DATETIME keep their declared scale.
func TestColumnMetadata(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	db := rootDB(t, p, "")
	mustExec(t, ctx, db,
		"CREATE DATABASE meta",
		"CREATE TABLE meta.t (id INT PRIMARY KEY, b BIT(8) NOT NULL, f FLOAT NOT NULL, d DOUBLE NOT NULL, y YEAR NOT NULL, dc DECIMAL(10,6) NOT NULL, dt DATETIME(2) NOT NULL, ts TIMESTAMP(6) NULL)",
		"INSERT INTO meta.t VALUES (1, b'01000010', 1.5, 2.25, 2006, 1.5, '2006-01-02 15:04:05.12', '2020-01-02 03:04:05.123456')")
	type want struct {
		scan           reflect.Type
		prec, scale    int64
		hasDecimalSize bool
	}
	cols := map[string]want{
		"b":  {scan: reflect.TypeOf([]byte{})},
		"f":  {scan: reflect.TypeOf(float32(0)), prec: math.MaxInt64, scale: math.MaxInt64, hasDecimalSize: true},
		"d":  {scan: reflect.TypeOf(float64(0)), prec: math.MaxInt64, scale: math.MaxInt64, hasDecimalSize: true},
		"y":  {scan: reflect.TypeOf(uint16(0))},
		"dc": {scan: reflect.TypeOf(""), prec: 10, scale: 6, hasDecimalSize: true},
		"dt": {scan: reflect.TypeOf(sql.NullTime{}), prec: 2, scale: 2, hasDecimalSize: true},
		"ts": {scan: reflect.TypeOf(sql.NullTime{}), prec: 6, scale: 6, hasDecimalSize: true},
	}
	cfg := clientConfig(t, p, "root", rootPassword, "meta")
	cfg.ParseTime = true
	mdb := openConfig(t, cfg)
	for _, proto := range []struct {
		name string
		args []any
	}{{"text", nil}, {"binary", []any{1}}} {
		q := "SELECT b, f, d, y, dc, dt, ts FROM t"
		if proto.args != nil {
			q += " WHERE id = ?"
		}
		rows, err := mdb.QueryContext(ctx, q, proto.args...)
		if err != nil {
			t.Fatalf("%s: %v", proto.name, err)
		}
		cts, err := rows.ColumnTypes()
		if err != nil {
			t.Fatal(err)
		}
		for _, ct := range cts {
			w := cols[ct.Name()]
			if ct.ScanType() != w.scan {
				t.Errorf("%s protocol, column %s: scan type %v, want %v", proto.name, ct.Name(), ct.ScanType(), w.scan)
			}
			prec, scale, ok := ct.DecimalSize()
			if ok != w.hasDecimalSize || prec != w.prec || scale != w.scale {
				t.Errorf("%s protocol, column %s: DecimalSize() = %d, %d, %v; want %d, %d, %v", proto.name, ct.Name(), prec, scale, ok, w.prec, w.scale, w.hasDecimalSize)
			}
		}
		if !rows.Next() {
			t.Fatalf("%s: no row", proto.name)
		}
		var b []byte
		var f float32
		var d float64
		var y uint16
		var dc string
		var dt, ts sql.NullTime
		if err := rows.Scan(&b, &f, &d, &y, &dc, &dt, &ts); err != nil {
			t.Fatalf("%s: scan: %v", proto.name, err)
		}
		rows.Close()
		wantDT := time.Date(2006, 1, 2, 15, 4, 5, 120000000, time.UTC)
		wantTS := time.Date(2020, 1, 2, 3, 4, 5, 123456000, time.UTC)
		if string(b) != "B" || f != 1.5 || d != 2.25 || y != 2006 || dc != "1.500000" || !dt.Time.Equal(wantDT) || !ts.Time.Equal(wantTS) {
			t.Errorf("%s: row = %q %v %v %v %q %v %v", proto.name, b, f, d, y, dc, dt.Time, ts.Time)
		}
	}
	// Without parseTime the driver formats a binary-protocol TIMESTAMP
	// with the column's decimals: TIMESTAMP(6) keeps its fraction.
	var s string
	if err := db.QueryRowContext(ctx, "SELECT ts FROM meta.t WHERE id = ?", 1).Scan(&s); err != nil {
		t.Fatal(err)
	}
	if s != "2020-01-02 03:04:05.123456" {
		t.Errorf("TIMESTAMP(6) through a prepared statement as a string: %q, want 2020-01-02 03:04:05.123456", s)
	}
}
