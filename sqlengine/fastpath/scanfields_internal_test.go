package fastpath

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/internal/lenenc"
	"petrel/sqlengine"
	"petrel/storage/keys"
)

// TestScanFieldsMatchRows: a scan's rows formatted from the stored fields
// (scanfields.go) are the bytes and wire types wireRow gives from the
// decoded rows, for every integer width at its limits, NULLs, text that
// goes as stored and text GMS converts (non-ASCII for a latin1 client,
// CHAR, latin1 columns), under four character_set_results; the values
// of one batch stay intact as the arena grows; the row packets written
// from the fields are those vitess writes of wireRow's values; a schema
// with another type has no stored formatting.
func TestScanFieldsMatchRows(t *testing.T) {
	sqlengine.InstallResultEncoders()
	col := func(name string, typ sql.Type) *sql.Column { return &sql.Column{Name: name, Type: typ, Nullable: true} }
	sch := sql.Schema{
		col("i8", types.Int8), col("i16", types.Int16), col("i24", types.Int24), col("i32", types.Int32), col("i64", types.Int64),
		col("u8", types.Uint8), col("u16", types.Uint16), col("u24", types.Uint24), col("u32", types.Uint32), col("u64", types.Uint64),
		col("vc", types.MustCreateString(sqltypes.VarChar, 128, sql.Collation_utf8mb4_0900_ai_ci)),
		col("tx", types.MustCreateString(sqltypes.Text, 65535, sql.Collation_utf8mb4_bin)),
		col("ch", types.MustCreateString(sqltypes.Char, 10, sql.Collation_utf8mb4_0900_ai_ci)),
		col("l1", types.MustCreateString(sqltypes.VarChar, 10, sql.Collation_latin1_swedish_ci)),
	}
	rows := []sql.Row{
		{int8(-128), int16(-32768), int32(-1 << 23), int32(math.MinInt32), int64(math.MinInt64),
			uint8(0), uint16(0), uint32(0), uint32(0), uint64(0), "", "", "", ""},
		{int8(127), int16(32767), int32(1<<23 - 1), int32(math.MaxInt32), int64(math.MaxInt64),
			uint8(255), uint16(65535), uint32(1<<24 - 1), uint32(math.MaxUint32), uint64(math.MaxUint64),
			"héllo wörld ✓ 𝄞", strings.Repeat("mxvtvmC9127qJNm0", 40), "ab", "åäö"},
		{nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
		{int8(1), int16(2), int32(3), int32(42), int64(5), uint8(6), uint16(7), uint32(8), uint32(9), uint64(10),
			"bob", "long text", "x", "abc"},
	}
	var stored [][]byte
	for _, r := range rows {
		b, err := keys.EncodeRow(nil, sch, r)
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, b)
	}
	projs := [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, {13, 10, 3}, {11}}
	for _, results := range []sql.CharacterSetID{sql.CharacterSet_utf8mb4, sql.CharacterSet_latin1, sql.CharacterSet_binary, sql.CharacterSet_utf8mb3} {
		ctx := sql.NewContext(context.Background(), sql.WithSession(sql.NewBaseSession()))
		if err := ctx.SetSessionVariable(ctx, "character_set_results", results.String()); err != nil {
			t.Fatal(err)
		}
		for _, proj := range projs {
			sf := newScanFields(sch, proj, results)
			if sf == nil {
				t.Fatalf("%v: no stored formatting for integers and text", proj)
			}
			fields := make([]keys.Field, len(sch))
			// A small arena, so that appends outgrow it within the batch.
			arena := make([]byte, 0, 8)
			got := make([][]sqltypes.Value, len(stored))
			gotOK := make([]bool, len(stored))
			for i, b := range stored {
				if err := sf.dec.Decode(fields, b); err != nil {
					t.Fatal(err)
				}
				got[i] = make([]sqltypes.Value, len(proj))
				arena, gotOK[i] = sf.row(ctx, results, fields, got[i], arena)
			}
			for i, b := range stored {
				row, err := keys.DecodeRow(b, sch)
				if err != nil {
					t.Fatal(err)
				}
				want := make([]sqltypes.Value, len(proj))
				_, ok := wireRow(ctx, sch, results, row, proj, want, nil)
				if ok != gotOK[i] {
					t.Errorf("%s %v row %d: converts %v, wireRow's %v", results, proj, i, gotOK[i], ok)
				}
				if !ok {
					continue
				}
				for j := range proj {
					g, w := got[i][j], want[j]
					if g.Type() != w.Type() || g.IsNull() != w.IsNull() || string(g.Raw()) != string(w.Raw()) {
						t.Errorf("%s row %d column %s: %v %q, wireRow's %v %q", results, i, sch[proj[j]].Name, g.Type(), g.Raw(), w.Type(), w.Raw())
					}
				}
				// The row packet written here is the one vitess writes of
				// wireRow's values: NULL as 0xfb, the others length-encoded.
				if err := sf.dec.Decode(fields, b); err != nil {
					t.Fatal(err)
				}
				pkt, next, ok := sf.appendPacket(ctx, results, fields, []byte("xy"), 5, make([]sqltypes.Value, 1))
				if !ok || next != 6 {
					t.Fatalf("%s %v row %d: appendPacket ok %v, next sequence %d", results, proj, i, ok, next)
				}
				var payload []byte
				for _, w := range want {
					if w.IsNull() {
						payload = append(payload, 0xfb)
						continue
					}
					payload = lenenc.Append(payload, uint64(len(w.Raw())))
					payload = append(payload, w.Raw()...)
				}
				wantPkt := append([]byte("xy"), byte(len(payload)), byte(len(payload)>>8), byte(len(payload)>>16), 5)
				if wantPkt = append(wantPkt, payload...); string(pkt) != string(wantPkt) {
					t.Errorf("%s %v row %d: packet %q, want %q", results, proj, i, pkt, wantPkt)
				}
			}
		}
	}
	other := append(sch[:2:2], &sql.Column{Name: "f", Type: types.Float64})
	if newScanFields(other, []int{0, 2}, sql.CharacterSet_utf8mb4) != nil {
		t.Error("a DOUBLE column got stored formatting")
	}
	if newScanFields(other, []int{0, 1}, sql.CharacterSet_utf8mb4) == nil {
		t.Error("integer columns beside an unread DOUBLE got no stored formatting")
	}
	yr := sql.Schema{{Name: "y", Type: types.Year}}
	if newScanFields(yr, []int{0}, sql.CharacterSet_utf8mb4) != nil {
		t.Error("a YEAR column got stored formatting")
	}
}

// TestAppendPacketSplits: a row of 16 MiB or more goes out as packets of
// 2^24-1 payload bytes with consecutive sequence ids, and an empty packet
// after a payload of exactly 2^24-1 bytes, as the protocol splits it.
func TestAppendPacketSplits(t *testing.T) {
	sch := sql.Schema{{Name: "t", Type: types.LongText, Nullable: true}}
	sf := newScanFields(sch, []int{0}, sql.CharacterSet_utf8mb4)
	if sf == nil {
		t.Fatal("no stored formatting for LONGTEXT")
	}
	ctx := sql.NewContext(context.Background(), sql.WithSession(sql.NewBaseSession()))
	// Payloads of 2^24-1 (a 4-byte length prefix), 2^24, 2*(2^24-1) (a
	// 9-byte prefix) and 101 bytes.
	for _, textLen := range []int{maxPayload - 4, maxPayload - 4 + 1, 2*maxPayload - 9, 100} {
		text := []byte(strings.Repeat("a", textLen))
		fields := []keys.Field{{Bytes: text}}
		pkt, next, ok := sf.appendPacket(ctx, sql.CharacterSet_utf8mb4, fields, nil, 250, make([]sqltypes.Value, 1))
		if !ok {
			t.Fatal("did not convert")
		}
		payload := len(lenenc.Append(nil, uint64(textLen))) + textLen
		var lens []int
		var seqs []byte
		var body []byte
		for i := 0; i < len(pkt); {
			n := int(pkt[i]) | int(pkt[i+1])<<8 | int(pkt[i+2])<<16
			lens, seqs = append(lens, n), append(seqs, pkt[i+3])
			body = append(body, pkt[i+4:i+4+n]...)
			i += 4 + n
		}
		wantPackets := payload/maxPayload + 1
		if len(lens) != wantPackets || next != byte(250+wantPackets) {
			t.Fatalf("text of %d: packets %v, next %d; want %d packets", textLen, lens, next, wantPackets)
		}
		for i, s := range seqs {
			if s != byte(250+i) {
				t.Fatalf("text of %d: sequence ids %v", textLen, seqs)
			}
		}
		if len(body) != payload || string(body[len(body)-textLen:]) != string(text) {
			t.Fatalf("text of %d: payload of %d bytes, want %d", textLen, len(body), payload)
		}
	}
}
