package e2e

import (
	"encoding/binary"
	"testing"
	"time"

	"petrel/lab"
)

const (
	clientMultiResults = 1 << 17
	serverMoreResults  = 0x0008
)

// TestCallResultSetsOnTheWire reads a CALL's reply packet by packet, as
// MySQL sends it: for a client with CLIENT_MULTI_RESULTS, each SELECT's
// result set ends with an EOF carrying SERVER_MORE_RESULTS_EXISTS, then
// an OK without it ends the CALL, every packet numbered one after the
// other; a client without CLIENT_MULTI_RESULTS gets 1312 for a procedure
// that returns rows and an OK for one that does not, and goes on.
func TestCallResultSetsOnTheWire(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	db := rootDB(t, p, "")
	mustExec(t, ctx, db, "CREATE DATABASE cw", "CREATE TABLE cw.t (a INT PRIMARY KEY)", "INSERT INTO cw.t VALUES (1), (2)",
		"CREATE PROCEDURE cw.two() BEGIN SELECT a FROM cw.t ORDER BY a; SELECT 'x' AS s; END",
		"CREATE PROCEDURE cw.norows() BEGIN INSERT INTO cw.t VALUES (3); END")

	old := dialRaw(t, p.Port())
	if err := old.login("root", rootPassword, 0); err != nil {
		t.Fatal(err)
	}
	if err := old.query("CALL cw.two()", 20*time.Second); rawErrNo(err) != 1312 {
		t.Fatalf("CALL of a procedure with rows, no CLIENT_MULTI_RESULTS: %v, want 1312", err)
	}
	if err := old.query("CALL cw.norows()", 20*time.Second); err != nil {
		t.Fatalf("CALL of a procedure without rows: %v", err)
	}
	if v, err := old.queryValue("SELECT COUNT(*) FROM cw.t", 20*time.Second); err != nil || v != "3" {
		t.Fatalf("after the CALLs: %q, %v", v, err)
	}

	r := dialRaw(t, p.Port())
	if err := r.login("root", rootPassword, clientMultiResults); err != nil {
		t.Fatal(err)
	}
	r.seq = 0
	if err := r.writePacket(append([]byte{0x03}, "CALL cw.two()"...)); err != nil {
		t.Fatal(err)
	}
	type set struct {
		cols, rows int
		more       bool
	}
	var sets []set
	want := byte(1)
	read := func() []byte {
		t.Helper()
		pk, err := r.readPacket(20 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if r.seq-1 != want {
			t.Fatalf("packet numbered %d, want %d", r.seq-1, want)
		}
		want++
		if len(pk) > 0 && pk[0] == 0xff {
			t.Fatalf("error: %v", parseErr(pk))
		}
		return pk
	}
	for {
		pk := read()
		if pk[0] == 0x00 {
			// The CALL's OK.
			status := binary.LittleEndian.Uint16(pk[3:])
			if len(pk) < 5 || status&serverMoreResults != 0 {
				t.Fatalf("final OK %x: more results set", pk)
			}
			break
		}
		s := set{cols: int(pk[0])}
		for range s.cols {
			read()
		}
		if eof := read(); eof[0] != 0xfe {
			t.Fatalf("after the columns: %x, want EOF", eof)
		}
		for {
			pk := read()
			if pk[0] == 0xfe && len(pk) < 9 {
				s.more = binary.LittleEndian.Uint16(pk[3:])&serverMoreResults != 0
				break
			}
			s.rows++
		}
		sets = append(sets, s)
		if len(sets) > 4 {
			t.Fatal("too many result sets")
		}
	}
	if len(sets) != 2 || sets[0] != (set{1, 3, true}) || sets[1] != (set{1, 1, true}) {
		t.Fatalf("result sets %+v, want 1 column x 3 rows and 1 x 1, each with more results", sets)
	}
	if v, err := r.queryValue("SELECT COUNT(*) FROM cw.t", 20*time.Second); err != nil || v != "3" {
		t.Fatalf("after the CALL: %q, %v", v, err)
	}
}
