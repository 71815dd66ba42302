package wire

import (
	"encoding/binary"
	"strconv"
	"testing"

	"github.com/dolthub/vitess/go/mysql"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// FuzzGuardCommand feeds guardCommand arbitrary commands for a statement
// with an arbitrary parameter count (up to 65535; seeds in
// testdata/fuzz): it never panics; an EXECUTE it passes on unchanged
// decodes whole; one it rewrites (65529 parameters or more) has every
// parameter bound and leaves vitess the 11-byte command without values.
func FuzzGuardCommand(f *testing.F) {
	exec := func(id uint32, rest ...byte) []byte {
		b := binary.LittleEndian.AppendUint32([]byte{comStmtExecute}, id)
		b = binary.LittleEndian.AppendUint32(append(b, 0), 1)
		return append(b, rest...)
	}
	f.Add(uint16(1), exec(1, 0, 1, 0x08, 0, 41, 0, 0, 0, 0, 0, 0, 0))
	f.Add(uint16(2), exec(1, 0, 1, 0xfd, 0, 0x0c, 0, 3, 'a', 'b', 'c', 7, 0xe8, 7, 1, 2, 3, 4, 5))
	f.Add(uint16(1), exec(1, 1, 1, 0x06, 0))
	f.Add(uint16(65535), exec(1))
	f.Add(uint16(3), []byte{comStmtSendLongData, 1, 0, 0, 0, 2, 0, 'x'})
	f.Add(uint16(0), []byte{comStmtReset, 1, 0, 0, 0})
	f.Add(uint16(0), []byte{comFieldList, 't', 0})
	f.Fuzz(func(t *testing.T, n uint16, p []byte) {
		prep := &mysql.PrepareData{StatementID: 1, ParamsCount: n, ParamsType: make([]int32, n), BindVars: map[string]*querypb.BindVariable{}}
		stmts := map[uint32]*mysql.PrepareData{1: prep}
		g := guardCommand(p, stmts)
		if len(p) == 0 || p[0] != comStmtExecute || g.reply != nil || g.drop {
			return
		}
		if g.replace == nil {
			if int(n) >= vitessBitmapLimit {
				t.Fatalf("an EXECUTE for %d parameters passed to vitess unchanged", n)
			}
			if _, _, ok := decodeExecute(p, prep, true); !ok {
				t.Fatalf("passed on an EXECUTE that does not decode: %x", p)
			}
			return
		}
		if len(g.replace) != 11 || g.replace[10] != 0 {
			t.Fatalf("replacement %x, want the 11-byte command without values", g.replace)
		}
		for i := range int(n) {
			if prep.BindVars["v"+strconv.Itoa(i+1)] == nil {
				t.Fatalf("parameter %d of %d unbound after the rewrite", i+1, n)
			}
		}
	})
}
