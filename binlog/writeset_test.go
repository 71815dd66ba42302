package binlog

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/cockroachdb/datadriven"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"

	"petrel/storage"
)

// TestDepTracker replays testdata/writeset against the dependency
// tracking core. Commands:
//
//	new mode=WRITESET size=N     a fresh tracker (a new binlog file)
//	mode mode=... size=N         SET GLOBAL of the mode or history size
//	txn seq=N co=N [keys=a,b] [missing] [ddl] [session=N]
//	                             a transaction numbered seq whose
//	                             commit-order last_committed is co
//	rotate                       a new binlog file
//
// txn prints the transaction's last_committed and the history's size.
func TestDepTracker(t *testing.T) {
	datadriven.Walk(t, "testdata/writeset", func(t *testing.T, path string) {
		var d *depTracker
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch td.Cmd {
			case "new", "mode":
				mode, size := TrackWriteset, DefaultHistorySize
				td.MaybeScanArgs(t, "mode", &mode)
				td.MaybeScanArgs(t, "size", &size)
				if td.Cmd == "new" {
					d = newDepTracker(mode, size)
				} else {
					d.setMode(mode, size)
				}
				return "ok"
			case "rotate":
				d.reset(1)
				return "ok"
			case "txn":
				var seq, co int64
				td.ScanArgs(t, "seq", &seq)
				td.ScanArgs(t, "co", &co)
				ws := &writeset{missingKeys: td.HasArg("missing"), noRows: td.HasArg("ddl")}
				if td.HasArg("keys") {
					var keys []string
					td.ScanArgs(t, "keys", &keys)
					for _, k := range keys {
						ws.hashes = append(ws.hashes, xxhash.Sum64String(k))
					}
				}
				if td.HasArg("session") {
					var s int
					td.ScanArgs(t, "session", &s)
					ws.session = uint32(s)
				}
				lc := d.lastCommitted(seq, co, ws)
				return fmt.Sprintf("last_committed=%d history=%d", lc, len(d.history))
			}
			t.Fatalf("unknown command %q", td.Cmd)
			return ""
		})
	})
}

// TestWritesetIntervals runs a recorded workload through a real log
// (storage, Prepare, Append, Wait) and checks every GTID event's
// last_committed against a reference computation from the workload
// itself: never before the newest earlier transaction of the file that
// wrote an equal primary or unique key (safety), and no later than that
// (parallelism), under WRITESET; under COMMIT_ORDER every transaction
// depends on the one before it (one committer, so one per group).
func TestWritesetIntervals(t *testing.T) {
	for _, mode := range []string{TrackWriteset, TrackCommitOrder} {
		t.Run(mode, func(t *testing.T) {
			fs, dir := vfs.NewMem(), t.TempDir()
			st, err := storage.Open(storage.Options{Dir: "db", FS: fs, Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			l, err := Open(Options{Dir: dir, ServerUUID: testSID, Logger: quiet, Store: st, DependencyTracking: mode})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			st.SetSink(l)
			ctx := context.Background()
			txn := st.Begin()
			if err := st.Catalog().CreateDatabase(txn, "d", 0); err != nil {
				t.Fatal(err)
			}
			tb, err := st.Catalog().CreateTable(txn, storage.TableDef{
				Database: "d", Name: "t", PK: []int{0},
				Columns: []storage.ColumnDef{{Name: "id", Type: "int", PrimaryKey: true}, {Name: "u", Type: "int", Nullable: true}, {Name: "v", Type: "int"}},
				Indexes: []storage.IndexDef{{ID: 1, Name: "u", Columns: []string{"u"}, Unique: true}},
			})
			if err != nil {
				t.Fatal(err)
			}
			txn.LogQuery("d", "CREATE TABLE t (id INT PRIMARY KEY, u INT UNIQUE, v INT NOT NULL)")
			if err := txn.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			// The workload: each transaction writes rows by id, and u
			// (unique; NULL for some, which conflicts with nothing). The
			// keys each touches are recorded for the reference.
			type op struct {
				id int32
				u  any
			}
			work := [][]op{
				{{1, int32(10)}}, {{2, int32(20)}}, {{3, nil}},
				{{1, int32(11)}}, // 4: id 1 again
				{{2, int32(22)}}, // 5: id 2 again, frees u=20
				{{4, int32(20)}}, // 6: a new row takes u=20: after 5 only by the unique key
				{{5, nil}},       // 7: nothing in common
				{{3, int32(30)}}, // 8: id 3 again (its u was NULL)
				{{7, int32(70)}, {8, int32(80)}},
				{{8, int32(81)}}, // 10: id 8 again
				{{9, int32(12)}}, // 11: nothing in common
			}
			rows := map[int32]sql.Row{}
			keysOf := func(r sql.Row) []string {
				ks := []string{fmt.Sprintf("id=%v", r[0])}
				if r[1] != nil {
					ks = append(ks, fmt.Sprintf("u=%v", r[1]))
				}
				return ks
			}
			var touched [][]string
			for i, w := range work {
				txn := st.Begin()
				var ks []string
				for _, o := range w {
					after := sql.Row{o.id, o.u, int32(i)}
					if before, ok := rows[o.id]; ok {
						if err := txn.Update(ctx, tb, before, after); err != nil {
							t.Fatal(err)
						}
						ks = append(ks, keysOf(before)...)
					} else if err := txn.Insert(ctx, tb, after); err != nil {
						t.Fatalf("txn %d: %v", i+1, err)
					}
					ks = append(ks, keysOf(after)...)
					rows[o.id] = after
				}
				if err := txn.Commit(ctx); err != nil {
					t.Fatalf("txn %d: %v", i+1, err)
				}
				touched = append(touched, ks)
			}
			got := gtidIntervals(t, l)
			// The file's first transaction is the CREATE TABLE (DDL).
			if len(got) != len(work)+1 {
				t.Fatalf("%d GTID events, want %d", len(got), len(work)+1)
			}
			for j := range work {
				seq := int64(j + 2)
				want := int64(1) // the DDL before everything is a barrier
				if mode == TrackCommitOrder {
					want = seq - 1
				} else {
					for i := 0; i < j; i++ {
						if overlap(touched[i], touched[j]) {
							want = max(want, int64(i+2))
						}
					}
				}
				if g := got[j+1]; g.SeqNo != seq || g.LastCommitted != want {
					t.Errorf("txn %d (keys %s): last_committed=%d sequence_number=%d, want %d and %d",
						j+1, strings.Join(touched[j], " "), g.LastCommitted, g.SeqNo, want, seq)
				}
			}
			// A replica computes the same write sets from the row images
			// (RowsFootprint): two transactions share a hash exactly when
			// they touched an equal key.
			rd, err := OpenReader(l.path(l.Files()[0].Name))
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			tr := NewTxnReader(rd, l.Files()[0].Name)
			var fps []Footprint
			for {
				tx, err := tr.Next()
				if err != nil {
					break
				}
				if tx.DDL {
					continue
				}
				fp, err := RowsFootprint(st, tx.Events[1:], true)
				if err != nil {
					t.Fatal(err)
				}
				if len(fp.DBs) != 1 || fp.DBs[0] != "d" || fp.NoKeys || len(fp.Hashes) == 0 {
					t.Fatalf("footprint %+v: want database d, keys", fp)
				}
				fps = append(fps, fp)
			}
			if len(fps) != len(work) {
				t.Fatalf("%d row transactions read back, want %d", len(fps), len(work))
			}
			shares := func(a, b []uint64) bool {
				for _, x := range a {
					for _, y := range b {
						if x == y {
							return true
						}
					}
				}
				return false
			}
			for j := range work {
				for i := 0; i < j; i++ {
					if g, w := shares(fps[i].Hashes, fps[j].Hashes), overlap(touched[i], touched[j]); g != w {
						t.Errorf("txns %d and %d: replica write sets share a key = %v, want %v (keys %v / %v)", i+1, j+1, g, w, touched[i], touched[j])
					}
				}
			}
		})
	}
}

func overlap(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// gtidIntervals reads the GTID events of the log's first file.
func gtidIntervals(t *testing.T, l *Log) []GTIDInfo {
	t.Helper()
	rd, err := OpenReader(l.path(l.Files()[0].Name))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var out []GTIDInfo
	for {
		ev, _, err := rd.Next()
		if err != nil {
			break
		}
		if ev[4] != GTIDEvent {
			continue
		}
		g, err := ParseGTID(Body(ev))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}
