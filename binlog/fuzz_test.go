package binlog

import (
	"testing"

	"petrel/internal/base"
)

// The event parsers face bytes from files and the network: they must
// return errors, never panic.
func FuzzParseEvents(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0})
	f.Add(TableMapBody(7, "db", "t", nil))
	f.Add(queryBody(1, "db", "BEGIN", 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ParseGTID(b)
		_, _ = ParseQuery(b)
		_, _, _ = ParseRotate(b)
		if tm, err := ParseTableMap(b); err == nil {
			for _, typ := range []byte{WriteRowsEventV2, UpdateRowsEventV2, DeleteRowsEventV2, WriteRowsEventV1} {
				_, _ = ParseRows(typ, b, tm, nil)
			}
		}
		_, _ = base.DecodeGTIDSet(b)
		if len(b) >= HeaderLen+ChecksumLen {
			_, _ = ParseHeader(b)
			_ = Info(append(append([]byte(nil), b[:HeaderLen]...), b[HeaderLen:]...))
		}
	})
}
