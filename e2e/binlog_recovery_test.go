package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// binlogEvent is one row of SHOW BINLOG EVENTS.
type binlogEvent struct {
	pos, end int64
	typ      string
}

func showBinlogEvents(t *testing.T, ctx context.Context, db querier, file string) []binlogEvent {
	t.Helper()
	rows, err := db.QueryContext(ctx, fmt.Sprintf("SHOW BINLOG EVENTS IN '%s'", file))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []binlogEvent
	for rows.Next() {
		var name, typ, info string
		var ev binlogEvent
		var sid int64
		if err := rows.Scan(&name, &ev.pos, &typ, &sid, &ev.end, &info); err != nil {
			t.Fatal(err)
		}
		ev.typ = typ
		out = append(out, ev)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// nthEvent returns the n-th (0-based) event of type typ.
func nthEvent(t *testing.T, evs []binlogEvent, typ string, n int) binlogEvent {
	t.Helper()
	for _, ev := range evs {
		if ev.typ == typ {
			if n == 0 {
				return ev
			}
			n--
		}
	}
	t.Fatalf("fewer %s events than asked", typ)
	return binlogEvent{}
}

func flipByte(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x20
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

// startOn starts a server on an existing datadir (another process, other
// flags); the caller expects it to start.
func startOn(t *testing.T, ctx context.Context, datadir string, port int, extra ...string) *lab.Petrel {
	t.Helper()
	p, err := lab.StartPetrel(ctx, lab.PetrelOptions{Datadir: datadir, Port: port, RootPassword: rootPassword, ExtraArgs: extra})
	if err != nil {
		t.Fatalf("start petrel %v: %v", extra, err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
		defer cancel()
		if err := p.Stop(sctx); err != nil {
			t.Errorf("stop petrel: %v", err)
		}
		if t.Failed() {
			t.Logf("petrel log (tail):\n%s", tail(p.Log(), 16<<10))
		}
	})
	return p
}

// wantRefused starts a server on datadir and expects it to refuse, with
// every part of want in its output.
func wantRefused(t *testing.T, ctx context.Context, datadir string, port int, want ...string) {
	t.Helper()
	p, err := lab.StartPetrel(ctx, lab.PetrelOptions{Datadir: datadir, Port: port, RootPassword: rootPassword, StartTimeout: 20 * time.Second})
	if err == nil {
		p.Stop(ctx)
		t.Fatalf("the server started; want a refusal naming %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("the refusal does not say %q:\n%v", w, err)
		}
	}
}

// TestFlippedByteAfterKillIsRefused: one byte flipped in the middle of the
// binlog of a server killed with -9. Within the tail log's reach (it
// holds a verified copy of every transaction of the current file since
// its ring last wrapped) the next start rewrites the damaged transaction
// from it, says so at WARN with file and offset, and loses nothing.
// Beyond its reach (the tail log removed here, as for a transaction
// logged before the ring's last wrap) it is corruption, not a torn tail:
// the start is refused, naming file and offset, and the file left alone;
// binlog_recovery_truncate_corrupt starts it, cutting the log there,
// saying so at ERROR level, with the GTID history continuing from the cut.
func TestFlippedByteAfterKillIsRefused(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	db := rootDB(t, p, "")
	mustExec(t, ctx, db, "CREATE DATABASE flip", "CREATE TABLE flip.t (id INT PRIMARY KEY, v VARCHAR(40))")
	for i := 1; i <= 200; i++ {
		mustExec(t, ctx, db, fmt.Sprintf("INSERT INTO flip.t VALUES (%d, 'acknowledged-%d')", i, i))
	}
	uuid := queryString(t, ctx, db, "SELECT @@server_uuid")
	file, _ := binlogPosition(t, ctx, db)
	victim := nthEvent(t, showBinlogEvents(t, ctx, db, file), "Write_rows", 100) // row 101
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(p.Datadir(), "binlog", file)
	flipByte(t, path, victim.pos+22)

	// A copy of the damaged datadir without its tail log.
	beyond := filepath.Join(t.TempDir(), "datadir")
	if out, err := exec.CommandContext(ctx, "cp", "-a", p.Datadir(), beyond).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	if err := os.Remove(filepath.Join(beyond, "binlog", "binlog.tail")); err != nil {
		t.Fatal(err)
	}

	// Within reach: repaired, nothing lost.
	p1 := startOn(t, ctx, p.Datadir(), p.Port())
	db1 := rootDB(t, p1, "")
	if n := queryInt(t, ctx, db1, "SELECT COUNT(*) FROM flip.t WHERE v = CONCAT('acknowledged-', id)"); n != 200 {
		t.Fatalf("after the repair: %d intact rows, want 200", n)
	}
	if g := queryString(t, ctx, db1, "SELECT @@GLOBAL.gtid_executed"); g != uuid+":1-202" {
		t.Fatalf("gtid_executed %q, want %s:1-202", g, uuid)
	}
	for _, w := range []string{"level=WARN", "differed from the tail log", "file=" + file, fmt.Sprintf("offset=%d", victim.pos+22)} {
		if !strings.Contains(p1.Log(), w) {
			t.Fatalf("the repair is not logged with %q:\n%s", w, tail(p1.Log(), 4000))
		}
	}

	// Beyond reach: refused, then cut with the override.
	path = filepath.Join(beyond, "binlog", file)
	st, _ := os.Stat(path)
	port, err := lab.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	wantRefused(t, ctx, beyond, port, fmt.Sprintf("%s at offset %d", file, victim.pos), "Refusing to start", "binlog_recovery_truncate_corrupt=ON")
	if st2, _ := os.Stat(path); st2.Size() != st.Size() {
		t.Fatalf("the refused start changed %s from %d to %d bytes", file, st.Size(), st2.Size())
	}

	p2 := startOn(t, ctx, beyond, port, "--binlog-recovery-truncate-corrupt")
	db2 := rootDB(t, p2, "")
	if n := queryInt(t, ctx, db2, "SELECT COUNT(*) FROM flip.t"); n != 100 {
		t.Fatalf("after the cut: %d rows, want 100 (the transactions before the damaged one)", n)
	}
	if m := queryInt(t, ctx, db2, "SELECT MAX(id) FROM flip.t"); m != 100 {
		t.Fatalf("after the cut: max id %d, want 100", m)
	}
	logs := p2.Log()
	for _, w := range []string{"level=ERROR", "binlog_recovery_truncate_corrupt", fmt.Sprintf("offset=%d", victim.pos), "transactions_after_damage=99"} {
		if !strings.Contains(logs, w) {
			t.Fatalf("the cut is not logged with %q:\n%s", w, tail(logs, 4000))
		}
	}
	if kept, _ := filepath.Glob(path + ".corrupt-*"); len(kept) != 1 {
		t.Fatalf("the bytes after the cut were not kept aside: %v", kept)
	}
	// The option shows, and acts only at startup.
	if v := queryInt(t, ctx, db2, "SELECT @@GLOBAL.binlog_recovery_truncate_corrupt"); v != 1 {
		t.Fatalf("binlog_recovery_truncate_corrupt reads %d, want 1", v)
	}
	_, err = db2.ExecContext(ctx, "SET GLOBAL binlog_recovery_truncate_corrupt = OFF")
	wantErrNo(t, "SET GLOBAL binlog_recovery_truncate_corrupt", err, 1238)
	if g := queryString(t, ctx, db2, "SELECT @@GLOBAL.gtid_executed"); g != uuid+":1-102" {
		t.Fatalf("gtid_executed %q, want %s:1-102 (2 DDL + 100 rows)", g, uuid)
	}
	mustExec(t, ctx, db2, "INSERT INTO flip.t VALUES (1000, 'after')")
	if g := queryString(t, ctx, db2, "SELECT @@GLOBAL.gtid_executed"); g != uuid+":1-103" {
		t.Fatalf("after one more insert gtid_executed %q, want %s:1-103", g, uuid)
	}
}

// TestTruncatedNewestHeaderKeepsGTIDs: a crash right after a restart can
// leave the newest binlog file with its header cut (no PREVIOUS_GTIDS);
// the next start recovers gtid_executed from the file before it and
// issues the next GTID, not uuid:1 again.
func TestTruncatedNewestHeaderKeepsGTIDs(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	db := rootDB(t, p, "")
	mustExec(t, ctx, db, "CREATE DATABASE hdr", "CREATE TABLE hdr.t (id INT PRIMARY KEY)")
	for i := 1; i <= 20; i++ {
		mustExec(t, ctx, db, fmt.Sprintf("INSERT INTO hdr.t VALUES (%d)", i))
	}
	uuid := queryString(t, ctx, db, "SELECT @@server_uuid")
	want := uuid + ":1-22"
	if g := queryString(t, ctx, db, "SELECT @@GLOBAL.gtid_executed"); g != want {
		t.Fatalf("gtid_executed %q, want %q", g, want)
	}
	if err := p.Restart(ctx); err != nil { // a new file with only its header
		t.Fatal(err)
	}
	db = rootDB(t, p, "")
	newest, _ := binlogPosition(t, ctx, db)
	fd := nthEvent(t, showBinlogEvents(t, ctx, db, newest), "Format_desc", 0)
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(p.Datadir(), "binlog", newest), fd.end+10); err != nil {
		t.Fatal(err)
	}
	if err := p.Restart(ctx); err != nil {
		t.Fatalf("restart: %v\n%s", err, tail(p.Log(), 4000))
	}
	if !strings.Contains(p.Log(), "header is incomplete") {
		t.Fatalf("the recovery is not logged:\n%s", tail(p.Log(), 4000))
	}
	db = rootDB(t, p, "")
	if g := queryString(t, ctx, db, "SELECT @@GLOBAL.gtid_executed"); g != want {
		t.Fatalf("after the restart gtid_executed %q, want %q", g, want)
	}
	mustExec(t, ctx, db, "INSERT INTO hdr.t VALUES (21)")
	if g := queryString(t, ctx, db, "SELECT @@GLOBAL.gtid_executed"); g != uuid+":1-23" {
		t.Fatalf("after one insert gtid_executed %q, want %s:1-23 (a GTID issued twice?)", g, uuid)
	}
	if n := queryInt(t, ctx, db, "SELECT COUNT(*) FROM hdr.t"); n != 21 {
		t.Fatalf("%d rows, want 21", n)
	}
}

// TestOldBinlogCorruptionIsRefused: a flipped byte in a binlog file that
// is not the newest is found at start, not when a replica reads it. With
// binlog_recovery_truncate_corrupt, a file storage already holds leaves
// the log (with the files before it), as a purge would.
func TestOldBinlogCorruptionIsRefused(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	db := rootDB(t, p, "")
	mustExec(t, ctx, db, "CREATE DATABASE old", "CREATE TABLE old.t (id INT PRIMARY KEY)")
	first, _ := binlogPosition(t, ctx, db)
	for i := 1; i <= 30; i++ {
		mustExec(t, ctx, db, fmt.Sprintf("INSERT INTO old.t VALUES (%d)", i))
		if i%10 == 0 {
			mustExec(t, ctx, db, "FLUSH BINARY LOGS")
		}
	}
	uuid := queryString(t, ctx, db, "SELECT @@server_uuid")
	victim := nthEvent(t, showBinlogEvents(t, ctx, db, first), "Write_rows", 4)
	if err := p.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	flipByte(t, filepath.Join(p.Datadir(), "binlog", first), victim.pos+21)
	wantRefused(t, ctx, p.Datadir(), p.Port(), fmt.Sprintf("%s at offset %d", first, victim.pos), "binlog_recovery_truncate_corrupt=ON")

	// The option file takes the override too.
	cnf := filepath.Join(t.TempDir(), "my.cnf")
	if err := os.WriteFile(cnf, []byte("[mysqld]\nbinlog-recovery-truncate-corrupt = ON\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p2 := startOn(t, ctx, p.Datadir(), p.Port(), "--config", cnf)
	db2 := rootDB(t, p2, "")
	if n := queryInt(t, ctx, db2, "SELECT COUNT(*) FROM old.t"); n != 30 {
		t.Fatalf("%d rows, want 30", n)
	}
	if g := queryString(t, ctx, db2, "SELECT @@GLOBAL.gtid_executed"); g != uuid+":1-32" {
		t.Fatalf("gtid_executed %q, want %s:1-32", g, uuid)
	}
	if g := queryString(t, ctx, db2, "SELECT @@GLOBAL.gtid_purged"); g != uuid+":1-12" {
		t.Fatalf("gtid_purged %q, want %s:1-12 (the corrupt file's transactions)", g, uuid)
	}
	rows, err := db2.QueryContext(ctx, "SHOW BINARY LOGS")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, size, enc string
		if err := rows.Scan(&name, &size, &enc); err != nil {
			t.Fatal(err)
		}
		if name == first {
			t.Fatalf("SHOW BINARY LOGS still lists the corrupt %s", first)
		}
	}
	if !strings.Contains(p2.Log(), "storage no longer needs") {
		t.Fatalf("the removal is not logged:\n%s", tail(p2.Log(), 4000))
	}
}
