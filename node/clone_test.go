package node_test

import (
	"database/sql"
	"errors"
	"hash/crc32"
	"strconv"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestCloneDonorStatements: the donor's side of CLONE over SQL on the
// assembled server: the manifest (format, the server's gtid_executed, the
// rotated binlog file), chunks with their CRC-32C, the privilege (1227
// without BACKUP_ADMIN or CLONE_ADMIN, which includes it), nothing outside
// the snapshot readable, and an ended snapshot gone (3863);
// performance_schema.clone_status is empty before any clone.
func TestCloneDonorStatements(t *testing.T) {
	n, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE c", "CREATE TABLE c.t (id INT PRIMARY KEY, v VARCHAR(20))", "INSERT INTO c.t VALUES (1, 'a'), (2, 'b')",
		"CREATE USER plain@'%' IDENTIFIED BY 'p'", "CREATE USER cloner@'%' IDENTIFIED BY 'c'", "GRANT CLONE_ADMIN ON *.* TO cloner@'%'")
	if rows := queryRows(t, db, "SELECT * FROM performance_schema.clone_status"); len(rows) != 0 {
		t.Fatalf("clone_status before any clone: %v", rows)
	}
	gtids := queryRows(t, db, "SELECT @@GLOBAL.gtid_executed")[0][0]
	as := func(user, pw string) *sql.DB {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = user, pw, "tcp", n.Addr()
		d, err := sql.Open("mysql", cfg.FormatDSN())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	wantErr := func(d *sql.DB, num uint16, q string) {
		t.Helper()
		_, err := d.Exec(q)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != num {
			t.Fatalf("%s: got %v, want error %d", q, err, num)
		}
	}
	wantErr(as("plain", "p"), 1227, "CLONE SNAPSHOT")

	man := queryRows(t, as("cloner", "c"), "CLONE SNAPSHOT")
	if len(man) < 3 {
		t.Fatalf("manifest: %v", man)
	}
	id, binlogFile := man[0][0], man[0][4]
	if man[0][1] != "1" || man[0][3] != gtids {
		t.Fatalf("manifest format %s, gtid_executed %q; the server's %q", man[0][1], man[0][3], gtids)
	}
	if cur := queryRows(t, db, "SHOW MASTER STATUS")[0][0]; cur != binlogFile {
		t.Fatalf("the snapshot's binlog file %s, the server's current %s: no rotation", binlogFile, cur)
	}
	var total int64
	for _, f := range man {
		size, _ := strconv.ParseInt(f[7], 10, 64)
		for off := int64(0); off < size; {
			n := min(size-off, 4096)
			r := queryRows(t, db, "CLONE READ '"+id+"' FILE '"+f[6]+"' OFFSET "+strconv.FormatInt(off, 10)+" LENGTH "+strconv.FormatInt(n, 10))
			sum, _ := strconv.ParseUint(r[0][1], 10, 32)
			if int64(len(r[0][0])) != n || crc32.Checksum([]byte(r[0][0]), crc32.MakeTable(crc32.Castagnoli)) != uint32(sum) {
				t.Fatalf("chunk of %s at %d: %d bytes, want %d, or a checksum mismatch", f[6], off, len(r[0][0]), n)
			}
			off += n
			total += n
		}
	}
	if total == 0 {
		t.Fatal("the snapshot is empty")
	}
	wantErr(db, 1105, "CLONE READ '"+id+"' FILE '../petrel.json' OFFSET 0 LENGTH 10")
	wantErr(as("plain", "p"), 1227, "CLONE READ '"+id+"' FILE '"+man[0][6]+"' OFFSET 0 LENGTH 10")
	mustExec(t, db, "CLONE END '"+id+"'")
	wantErr(db, 3863, "CLONE READ '"+id+"' FILE '"+man[0][6]+"' OFFSET 0 LENGTH 10")
	wantErr(db, 3863, "CLONE END '"+id+"'")
}
