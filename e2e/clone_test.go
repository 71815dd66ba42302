package e2e

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/lab"
)

// TestCloneUnderLoad: a new, empty Petrel clones a donor holding 20000
// rows while four writers commit on the donor, restarts itself on the
// clone, and replicates from the donor by auto-position. The clone is
// rate-limited (clone_max_data_bandwidth 2 MiB/s) and encrypted
// (REQUIRE SSL), so it lasts long
// enough for the writers to commit during it, and must not be faster
// than the limit. Afterwards the recipient's rows (a keyed table and a
// keyless one, where a transaction applied twice would show) and GTID
// set equal the donor's; the recipient's GTID set right after the clone
// is clone_status's and within the donor's.
func TestCloneUnderLoad(t *testing.T) {
	ctx := testContext(t, 90*time.Second)
	donor, ddb := cloneDonor(t, ctx, 20000)
	rcpt := startReplicaServer(t, ctx, 2, nil)
	rdb := rootDB(t, rcpt, "")
	mustExec(t, ctx, rdb, "SET GLOBAL clone_max_data_bandwidth = 2")

	load := startWriteLoad(ctx, ddb, 4)
	time.Sleep(200 * time.Millisecond)
	before := load.acked.Load()
	start := time.Now()
	rc := conn(t, ctx, rdb)
	if _, err := rc.ExecContext(ctx, cloneStmt(donor, "cloner", "cl0ne")+" REQUIRE SSL"); err != nil && !errors.Is(err, mysql.ErrInvalidConn) && !errors.Is(err, driver.ErrBadConn) {
		// (A closed connection is the restart on the clone: execClone.)
		load.finish()
		t.Fatalf("CLONE INSTANCE: %v", err)
	}
	took := time.Since(start)
	during := load.acked.Load() - before
	rc.Close()

	cloned := waitRestarted(t, ctx, rcpt, 30*time.Second)
	if !strings.Contains(rcpt.Log(), "tls=true") {
		t.Errorf("the clone with REQUIRE SSL did not say it used TLS")
	}
	rdb = rootDB(t, rcpt, "")
	var state, statusGTIDs string
	var bytes int64
	if err := rdb.QueryRowContext(ctx, "SELECT STATE, GTID_EXECUTED FROM performance_schema.clone_status").Scan(&state, &statusGTIDs); err != nil {
		t.Fatalf("clone_status: %v", err)
	}
	stages, est, data := cloneProgress(t, ctx, rdb)
	bytes = data
	if state != "Completed" || len(stages) != 4 || est == 0 || data != est {
		t.Fatalf("after the clone: clone_status %s, clone_progress %v (FILE COPY %d of %d bytes)", state, stages, data, est)
	}
	for s, st := range stages {
		if st != "Completed" {
			t.Errorf("clone_progress stage %s is %s", s, st)
		}
	}
	sameGTIDs(t, "recipient vs clone_status", cloned, statusGTIDs)
	subsetGTIDs(t, "clone within donor", cloned, queryString(t, ctx, ddb, "SELECT @@GLOBAL.gtid_executed"))
	if during < 5 {
		t.Errorf("the donor committed %d transactions during a %v clone: it did not keep serving writes", during, took)
	}
	// 2 MiB/s: the clone cannot be much faster (the first chunk is free).
	if min := time.Duration(float64(bytes-4<<20) / float64(2<<20) * float64(time.Second)); took < min*9/10 {
		t.Errorf("%d bytes cloned in %v under a 2 MiB/s limit (want >= %v)", bytes, took, min)
	}
	if uuid := queryString(t, ctx, rdb, "SELECT @@server_uuid"); uuid == queryString(t, ctx, ddb, "SELECT @@server_uuid") {
		t.Errorf("the recipient took the donor's server_uuid %s", uuid)
	}

	pointAt(t, ctx, rdb, donor.Port(), "")
	time.Sleep(300 * time.Millisecond) // replicate under the load too
	acked := load.finish()
	got := waitCaughtUp(t, ctx, ddb, rdb, 30*time.Second)
	sameGTIDs(t, "recipient vs donor after replication", got, queryString(t, ctx, ddb, "SELECT @@GLOBAL.gtid_executed"))
	n := sameTable(t, ctx, ddb, rdb, "c.t", "id")
	k := sameTable(t, ctx, ddb, rdb, "c.k", "w, n")
	if int64(n) != 20000+acked || int64(k) != acked {
		t.Fatalf("rows: c.t %d (want %d), c.k %d (want %d)", n, 20000+acked, k, acked)
	}
	t.Logf("cloned %d bytes in %v while the donor committed %d transactions; %d acknowledged in all", bytes, took.Round(time.Millisecond), during, acked)
}

// TestCloneFromReplica: the donor is a replica applying its source's
// writes; the clone then replicates from the source by auto-position and
// ends with the source's rows and GTID set. A relay refuses to be a donor
// (3869, passed on by the recipient). The transfer is compressed
// (clone_enable_compression) and plain (REQUIRE NO SSL): clone_progress's
// NETWORK is below its DATA.
func TestCloneFromReplica(t *testing.T) {
	ctx := testContext(t, 90*time.Second)
	src, sdb := cloneDonor(t, ctx, 2000)
	donor := startReplicaServer(t, ctx, 2, nil)
	ddb := rootDB(t, donor, "")
	pointAt(t, ctx, ddb, src.Port(), "")
	waitCaughtUp(t, ctx, sdb, ddb, 30*time.Second)
	relay := startPetrel(t, ctx, lab.PetrelOptions{Command: "relay", ServerID: 4})
	_, err := rootDB(t, relay, "").ExecContext(ctx, "CLONE SNAPSHOT")
	wantErrNo(t, "CLONE SNAPSHOT on a relay", err, 3869)

	rcpt := startReplicaServer(t, ctx, 3, nil)
	rdb := rootDB(t, rcpt, "")
	_, err = rdb.ExecContext(ctx, cloneStmt(relay, "root", rootPassword))
	wantErrNo(t, "CLONE INSTANCE from a relay", err, 3869)

	load := startWriteLoad(ctx, sdb, 2)
	time.Sleep(200 * time.Millisecond)
	mustExec(t, ctx, rdb, "SET GLOBAL clone_enable_compression = ON")
	execClone(t, ctx, rdb, cloneStmt(donor, "root", rootPassword)+" REQUIRE NO SSL")
	cloned := waitRestarted(t, ctx, rcpt, 30*time.Second)
	var data, network int64
	if err := rootDB(t, rcpt, "").QueryRowContext(ctx, "SELECT DATA, NETWORK FROM performance_schema.clone_progress WHERE STAGE = 'FILE COPY'").Scan(&data, &network); err != nil {
		t.Fatal(err)
	}
	if data == 0 || network >= data*9/10 {
		t.Errorf("compressed clone: %d bytes of data took %d on the network", data, network)
	}
	if !strings.Contains(rcpt.Log(), "tls=false compressed=true") {
		t.Errorf("the clone with REQUIRE NO SSL and compression did not say so")
	}
	subsetGTIDs(t, "clone within the source", cloned, queryString(t, ctx, sdb, "SELECT @@GLOBAL.gtid_executed"))
	rdb = rootDB(t, rcpt, "")
	pointAt(t, ctx, rdb, src.Port(), "")
	acked := load.finish()
	got := waitCaughtUp(t, ctx, sdb, rdb, 30*time.Second)
	sameGTIDs(t, "clone vs source", got, queryString(t, ctx, sdb, "SELECT @@GLOBAL.gtid_executed"))
	if n, k := sameTable(t, ctx, sdb, rdb, "c.t", "id"), sameTable(t, ctx, sdb, rdb, "c.k", "w, n"); int64(n) != 2000+acked || int64(k) != acked {
		t.Fatalf("rows: c.t %d (want %d), c.k %d (want %d)", n, 2000+acked, k, acked)
	}
}

// TestCloneInterrupted: a clone cut short leaves no half-usable datadir.
// KILL QUERY ends it with 1317 and nothing kept. The recipient killed with -9 mid-clone restarts on its old (empty)
// data, saying it removed the interrupted clone; the donor killed mid-clone
// fails the statement (ER_CLONE_DONOR) and leaves the recipient as it
// was, and the donor's restart drops its snapshot; then the clone runs
// again and succeeds. `petrel clone` killed mid-way leaves a directory
// the server refuses to start on, and a second run succeeds.
func TestCloneInterrupted(t *testing.T) {
	ctx := testContext(t, 120*time.Second)
	donor, ddb := cloneDonor(t, ctx, 20000)
	rcpt := startReplicaServer(t, ctx, 2, map[string]string{"clone_max_data_bandwidth": "1"})
	rdb := rootDB(t, rcpt, "")

	// cloneUntilCopying runs CLONE INSTANCE in the background and returns
	// once clone_progress shows data moving, with the statement's
	// connection id and outcome.
	cloneUntilCopying := func() (int64, <-chan error) {
		done, id := make(chan error, 1), make(chan int64, 1)
		go func() {
			db, err := rcpt.DB("")
			if err == nil {
				var c *sql.Conn
				if c, err = db.Conn(ctx); err == nil {
					var n int64
					if err = c.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&n); err == nil {
						id <- n
						_, err = c.ExecContext(ctx, cloneStmt(donor, "root", rootPassword))
					}
					c.Close()
				}
				db.Close()
			}
			done <- err
		}()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			var state sql.NullString
			rdb.QueryRowContext(ctx, "SELECT STATE FROM performance_schema.clone_status").Scan(&state)
			if _, _, data := cloneProgress(t, ctx, rdb); data > 0 && state.String == "In Progress" {
				return <-id, done
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatal("the clone did not start copying within 10s")
		return 0, nil
	}

	// KILL QUERY: 1317, nothing kept.
	id, done := cloneUntilCopying()
	mustExec(t, ctx, rdb, "KILL QUERY "+strconv.FormatInt(id, 10))
	wantErrNo(t, "a killed CLONE INSTANCE", <-done, 1317)
	assertUntouched(t, ctx, rcpt, rdb, "", "after KILL QUERY")

	// The recipient dies mid-clone.
	_, done = cloneUntilCopying()
	if err := rcpt.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Fatal("CLONE INSTANCE succeeded on a killed recipient")
	}
	if err := rcpt.Restart(ctx); err != nil {
		t.Fatalf("restart after the kill: %v", err)
	}
	if !strings.Contains(rcpt.Log(), "an interrupted clone was found and removed") {
		t.Errorf("the restart did not say it removed the interrupted clone")
	}
	rdb = rootDB(t, rcpt, "")
	assertUntouched(t, ctx, rcpt, rdb, "", "after the recipient's kill")

	// The donor dies mid-clone.
	_, done = cloneUntilCopying()
	if err := donor.Kill(); err != nil {
		t.Fatal(err)
	}
	err := <-done
	wantErrNo(t, "CLONE INSTANCE from a donor killed mid-way", err, 3862)
	assertUntouched(t, ctx, rcpt, rdb, "", "after the donor's kill")
	if st := queryString(t, ctx, rdb, "SELECT STATE FROM performance_schema.clone_status"); st != "Failed" {
		t.Errorf("clone_status after the donor's kill: %s, want Failed", st)
	}
	if err := donor.Restart(ctx); err != nil {
		t.Fatalf("donor restart: %v", err)
	}
	if _, err := os.Stat(filepath.Join(donor.Datadir(), "clone-donor")); !os.IsNotExist(err) {
		t.Errorf("the donor's restart kept its snapshots (%v)", err)
	}
	ddb = rootDB(t, donor, "")

	// And again, unlimited: it completes.
	mustExec(t, ctx, rdb, "SET GLOBAL clone_max_data_bandwidth = 0")
	execClone(t, ctx, rdb, cloneStmt(donor, "root", rootPassword))
	got := waitRestarted(t, ctx, rcpt, 30*time.Second)
	sameGTIDs(t, "recipient vs donor", got, queryString(t, ctx, ddb, "SELECT @@GLOBAL.gtid_executed"))
	rdb = rootDB(t, rcpt, "")
	if n := sameTable(t, ctx, ddb, rdb, "c.t", "id"); n != 20000 {
		t.Fatalf("cloned %d rows, want 20000", n)
	}

	// petrel clone, killed mid-way, then run again.
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "cli")
	args := []string{"clone", "--from", "127.0.0.1:" + itoa(donor.Port()), "--user", "root", "--password", rootPassword, "--datadir", dir}
	cmd := exec.CommandContext(ctx, bin, append(args, "--max-bandwidth", "1")...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && !nonEmptyFileUnder(filepath.Join(dir, "clone-staging", "data")) {
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(dir, "clone-staging")); err != nil {
		t.Fatalf("petrel clone killed mid-way left no staging directory to test with: %v", err)
	}
	port, err := lab.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	out, err := exec.CommandContext(sctx, bin, "server", "--datadir", dir, "--port", itoa(port)).CombinedOutput()
	cancel()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "held only an interrupted clone") {
		t.Errorf("a server on the interrupted clone's directory: %v; want exit 1 naming the interrupted clone\n%s", err, out)
	}
	if out, err := exec.CommandContext(ctx, bin, append(args, "--compress")...).CombinedOutput(); err != nil {
		t.Fatalf("petrel clone again: %v\n%s", err, out)
	}
	cl := startPetrel(t, ctx, lab.PetrelOptions{Datadir: dir, ServerID: 3})
	cdb := rootDB(t, cl, "")
	sameTable(t, ctx, ddb, cdb, "c.t", "id")
	sameGTIDs(t, "petrel clone vs donor", queryString(t, ctx, cdb, "SELECT @@GLOBAL.gtid_executed"), queryString(t, ctx, ddb, "SELECT @@GLOBAL.gtid_executed"))
}

// TestCloneBadInput: each refusal has MySQL's number and changes nothing
// on the recipient: a wrong password (1045), a donor user without
// BACKUP_ADMIN (1227), a recipient user without CLONE_ADMIN (1227), an
// unreachable donor (3862), a recipient holding data (3875); and
// `petrel clone` into a non-empty directory (1007) or with a wrong
// password (the directory is not created); CLONE LOCAL (1235); and a
// clone into DATA DIRECTORY, which leaves the recipient alone, refused
// with 3873 on a filesystem too small for it.
func TestCloneBadInput(t *testing.T) {
	ctx := testContext(t, 60*time.Second)
	donor, _ := cloneDonor(t, ctx, 10)
	rcpt := startReplicaServer(t, ctx, 2, nil)
	rdb := rootDB(t, rcpt, "")
	mustExec(t, ctx, rdb, "CREATE USER weak@'%' IDENTIFIED BY 'w34k'")
	weak := openConfig(t, clientConfig(t, rcpt, "weak", "w34k", ""))
	own := queryString(t, ctx, rdb, "SELECT @@GLOBAL.gtid_executed") // the account's

	unused, err := lab.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		db   querier
		stmt string
		want uint16
	}{
		{"wrong password", rdb, cloneStmt(donor, "cloner", "wrong"), 1045},
		{"donor user without BACKUP_ADMIN", rdb, cloneStmt(donor, "plain", "pl4in"), 1227},
		{"recipient user without CLONE_ADMIN", weak, cloneStmt(donor, "cloner", "cl0ne"), 1227},
		{"unreachable donor", rdb, strings.Replace(cloneStmt(donor, "cloner", "cl0ne"), ":"+itoa(donor.Port()), ":"+itoa(unused), 1), 3862},
	} {
		_, err := c.db.ExecContext(ctx, c.stmt)
		wantErrNo(t, c.what, err, c.want)
		if err != nil && !strings.Contains(err.Error(), "Clone Donor Error") && c.want != 1227 {
			t.Errorf("%s: %v does not name the donor", c.what, err)
		}
		assertUntouched(t, ctx, rcpt, rdb, own, c.what)
	}
	if n := queryInt(t, ctx, rdb, "SELECT ERROR_NO FROM performance_schema.clone_status"); n != 2003 {
		t.Errorf("clone_status ERROR_NO after the unreachable donor: %d, want 2003", n)
	}

	mustExec(t, ctx, rdb, "CREATE DATABASE mine")
	_, err = rdb.ExecContext(ctx, cloneStmt(donor, "cloner", "cl0ne"))
	wantErrNo(t, "non-empty recipient", err, 3875)
	if n := queryInt(t, ctx, rdb, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name IN ('mine', 'c')"); n != 1 {
		t.Errorf("after the refusal the recipient has %d of its database and the donor's, want only its own", n)
	}
	_, err = rdb.ExecContext(ctx, "CLONE LOCAL DATA DIRECTORY = '/tmp/x'")
	wantErrNo(t, "CLONE LOCAL", err, 1235)

	// DATA DIRECTORY: a clone into a new directory, the recipient left
	// alone (its data too); an existing directory is 1007, a relative one
	// 1525. A server started there has the donor's rows and GTID set.
	_, err = rdb.ExecContext(ctx, cloneStmt(donor, "cloner", "cl0ne")+" DATA DIRECTORY = '"+rcpt.Datadir()+"'")
	wantErrNo(t, "DATA DIRECTORY that exists", err, 1007)
	_, err = rdb.ExecContext(ctx, cloneStmt(donor, "cloner", "cl0ne")+" DATA DIRECTORY = 'rel/dir'")
	wantErrNo(t, "relative DATA DIRECTORY", err, 1525)
	into := filepath.Join(t.TempDir(), "into")
	mustExec(t, ctx, rdb, cloneStmt(donor, "cloner", "cl0ne")+" DATA DIRECTORY '"+into+"'")
	if st := queryString(t, ctx, rdb, "SELECT STATE FROM performance_schema.clone_status"); st != "Completed" {
		t.Errorf("clone_status after a DATA DIRECTORY clone: %s", st)
	}
	if n := queryInt(t, ctx, rdb, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name IN ('mine', 'c')"); n != 1 {
		t.Errorf("a DATA DIRECTORY clone changed the recipient")
	}
	// A DATA DIRECTORY on a filesystem too small for the snapshot: 3873
	// before anything is copied, nothing left there. (Mounting a tmpfs
	// needs root, as TestDiskFull.)
	if os.Geteuid() == 0 {
		mnt := t.TempDir()
		if out, err := exec.CommandContext(ctx, "mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", mnt).CombinedOutput(); err != nil {
			t.Fatalf("mount tmpfs: %v: %s", err, out)
		}
		t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
		_, err = rdb.ExecContext(ctx, cloneStmt(donor, "cloner", "cl0ne")+" DATA DIRECTORY '"+filepath.Join(mnt, "x")+"'")
		wantErrNo(t, "DATA DIRECTORY on a full filesystem", err, 3873)
		if entries, _ := os.ReadDir(mnt); len(entries) != 0 {
			t.Errorf("a refused clone left %d entries in its DATA DIRECTORY's parent", len(entries))
		}
	} else if os.Getenv(strictEnv) == "1" {
		t.Fatalf("the disk-space refusal needs root to mount a tmpfs, and %s=1", strictEnv)
	}

	cl := startPetrel(t, ctx, lab.PetrelOptions{Datadir: into, ServerID: 5})
	cdb := rootDB(t, cl, "")
	ddb := rootDB(t, donor, "")
	sameTable(t, ctx, ddb, cdb, "c.t", "id")
	sameGTIDs(t, "DATA DIRECTORY clone vs donor", queryString(t, ctx, cdb, "SELECT @@GLOBAL.gtid_executed"), queryString(t, ctx, ddb, "SELECT @@GLOBAL.gtid_executed"))

	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	from := "127.0.0.1:" + itoa(donor.Port())
	out, err := exec.CommandContext(ctx, bin, "clone", "--from", from, "--user", "cloner", "--password", "cl0ne", "--datadir", rcpt.Datadir()).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "ERROR 1007") {
		t.Errorf("petrel clone into a datadir in use: %v\n%s", err, out)
	}
	dir := filepath.Join(t.TempDir(), "new")
	out, err = exec.CommandContext(ctx, bin, "clone", "--from", from, "--user", "cloner", "--password", "nope", "--datadir", dir).CombinedOutput()
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "1045") {
		t.Errorf("petrel clone with a wrong password: %v\n%s", err, out)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("petrel clone with a wrong password left %s (%v)", dir, err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func nonEmptyFileUnder(dir string) bool {
	found := false
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && fi.Size() > 0 && strings.HasSuffix(fi.Name(), ".sst") {
			found = true
		}
		return nil
	})
	return found
}
