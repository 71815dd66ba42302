package e2e

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// TestMariaDBClientCompress: the mariadb client with --compress (zlib,
// CLIENT_COMPRESS) creates, fills and reads a table, including statements of
// 70 KB and results of megabytes (many compressed packets),
// and gets exactly what an uncompressed client gets; the server reports
// Compression ON for that session only.
func TestMariaDBClientCompress(t *testing.T) {
	requireTool(t, "mariadb", "/usr/bin/mariadb")
	ctx := testContext(t, 2*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	run := func(sql string, compress bool) string {
		t.Helper()
		var extra []string
		if compress {
			extra = append(extra, "--compress")
		}
		out, err := lab.RunMariaDBClient(ctx, p.Port(), "root", rootPassword, "", sql, extra...)
		if err != nil {
			t.Fatalf("%s (compress %v): %v", tail(sql, 200), compress, err)
		}
		return out
	}
	if got := strings.TrimSpace(run("SHOW SESSION STATUS LIKE 'Compression'", true)); got != "Compression\tON" {
		t.Fatalf("compressed session: %q, want Compression ON", got)
	}
	if got := strings.TrimSpace(run("SHOW SESSION STATUS LIKE 'Compression'", false)); got != "Compression\tOFF" && got != "Compression\t0" {
		t.Fatalf("plain session: %q, want Compression OFF", got)
	}
	run("CREATE DATABASE z; CREATE TABLE z.t (id INT PRIMARY KEY, s VARCHAR(400), n BIGINT)", true)
	for part := 0; part < 6; part++ {
		var vals []string
		for i := part * 500; i < (part+1)*500; i++ {
			vals = append(vals, fmt.Sprintf("(%d, '%s', %d)", i, strings.Repeat(fmt.Sprintf("row-%d-", i%17), 20), i*i))
		}
		run("INSERT INTO z.t VALUES "+strings.Join(vals, ","), true)
	}
	query := "SELECT id, s, n FROM z.t ORDER BY id; SELECT COUNT(*), SUM(n), SUM(LENGTH(s)) FROM z.t; SELECT REPEAT('abc', 300000)"
	z, plain := run(query, true), run(query, false)
	if len(z) < 1_000_000 || z != plain {
		hz, hp := sha256.Sum256([]byte(z)), sha256.Sum256([]byte(plain))
		t.Fatalf("compressed client read %d bytes (%s), plain client %d (%s)", len(z), hex.EncodeToString(hz[:6]), len(plain), hex.EncodeToString(hp[:6]))
	}
	if !strings.Contains(z, "3000\t8995500500\t") {
		t.Fatalf("aggregate row missing from:\n%s", tail(z, 2000))
	}
	// Errors arrive whole too.
	_, err := lab.RunMariaDBClient(ctx, p.Port(), "root", rootPassword, "", "SELECT * FROM z.missing", "--compress")
	if err == nil || !strings.Contains(err.Error(), "1146") {
		t.Fatalf("missing table over a compressed connection: %v, want error 1146", err)
	}
}

// TestReplicationLinkCompression: replicas of one primary, each through
// its own userspace link (which counts the bytes it carries), with
// SOURCE_COMPRESSION_ALGORITHMS 'zstd' (level 5), 'zlib' and none, and a
// fourth with 'zstd' that connects while the source's
// protocol_compression_stream is OFF: the compressed links carry fewer
// bytes from the source for the same sysbench rows, the streamed zstd
// link (Petrel to Petrel) at least a tenth fewer than MySQL's
// packet-by-packet zstd, and every replica ends with the primary's rows
// and gtid_executed. Bad option values get MySQL's errors 3920, 3921,
// 3924.
func TestReplicationLinkCompression(t *testing.T) {
	ctx := testContext(t, 5*time.Minute)
	src := startPetrel(t, ctx, lab.PetrelOptions{})
	sdb := rootDB(t, src, "")
	createReplUser(t, ctx, sdb)
	type replica struct {
		name  string
		extra string
		db    *sql.DB
		link  *lab.Link
	}
	reps := []*replica{
		{name: "zstd", extra: ", SOURCE_COMPRESSION_ALGORITHMS = 'zstd', SOURCE_ZSTD_COMPRESSION_LEVEL = 5"},
		{name: "zlib", extra: ", MASTER_COMPRESSION_ALGORITHMS = 'zlib'"},
		{name: "plain", extra: ""},
		{name: "zstd per packet", extra: ", SOURCE_COMPRESSION_ALGORITHMS = 'zstd', SOURCE_ZSTD_COMPRESSION_LEVEL = 5"},
	}
	for i, r := range reps {
		p := startReplicaServer(t, ctx, 2+i, nil)
		r.db = rootDB(t, p, "")
		link, err := lab.StartLink(fmt.Sprintf("127.0.0.1:%d", src.Port()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { link.Close() })
		r.link = link
	}
	for q, want := range map[string]uint16{
		"CHANGE REPLICATION SOURCE TO SOURCE_COMPRESSION_ALGORITHMS = 'lz4'":                         3920,
		"CHANGE REPLICATION SOURCE TO SOURCE_COMPRESSION_ALGORITHMS = 'zlib,zstd,uncompressed,zlib'": 3924,
		"CHANGE REPLICATION SOURCE TO SOURCE_ZSTD_COMPRESSION_LEVEL = 23":                            3921,
		"CHANGE REPLICATION SOURCE TO SOURCE_ZSTD_COMPRESSION_LEVEL = 0":                             3921,
	} {
		_, err := reps[0].db.ExecContext(ctx, q)
		wantErrNo(t, q, err, want)
	}
	for i, r := range reps {
		if i == 3 {
			mustExec(t, ctx, sdb, "SET GLOBAL protocol_compression_stream = OFF")
		}
		pointAt(t, ctx, r.db, r.link.Port(), r.extra)
		waitCaughtUp(t, ctx, sdb, r.db, 30*time.Second)
	}
	mustExec(t, ctx, sdb, "SET GLOBAL protocol_compression_stream = ON")
	for i, want := range []string{"zstd 5", "zlib 3", "uncompressed 3", "zstd 5"} {
		var algo string
		var level int
		if err := reps[i].db.QueryRowContext(ctx, "SELECT COMPRESSION_ALGORITHM, ZSTD_COMPRESSION_LEVEL FROM performance_schema.replication_connection_configuration").Scan(&algo, &level); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%s %d", algo, level); got != want {
			t.Fatalf("%s replica: replication_connection_configuration shows %q, want %q", reps[i].name, got, want)
		}
	}
	before := make([]int64, len(reps))
	for i, r := range reps {
		before[i] = r.link.Stats().Downstream
	}
	sysbenchWrites(t, ctx, sdb, 400, 300, 23)
	gtids := queryString(t, ctx, sdb, "SELECT @@GLOBAL.gtid_executed")
	bytes := make([]int64, len(reps))
	for i, r := range reps {
		if got := waitCaughtUp(t, ctx, sdb, r.db, 60*time.Second); got != gtids {
			t.Fatalf("%s replica at %s, primary at %s", r.name, got, gtids)
		}
		if n := sameTable(t, ctx, sdb, r.db, "sbtest.sbtest1", "id"); n != 400 {
			t.Fatalf("%s replica: %d rows", r.name, n)
		}
		bytes[i] = r.link.Stats().Downstream - before[i]
	}
	t.Logf("bytes from the source for 340 transactions: zstd-5 streamed %d, zstd-5 per packet %d, zlib %d, uncompressed %d (%.2fx, %.2fx, %.2fx)",
		bytes[0], bytes[3], bytes[1], bytes[2], float64(bytes[2])/float64(bytes[0]), float64(bytes[2])/float64(bytes[3]), float64(bytes[2])/float64(bytes[1]))
	if bytes[0]*10 > bytes[2]*7 || bytes[1]*10 > bytes[2]*7 || bytes[3]*10 > bytes[2]*7 {
		t.Fatalf("compressed links carried too much: zstd %d and %d, zlib %d, uncompressed %d bytes", bytes[0], bytes[3], bytes[1], bytes[2])
	}
	if bytes[0]*10 > bytes[3]*9 {
		t.Fatalf("streamed zstd carried %d bytes, packet-by-packet zstd %d", bytes[0], bytes[3])
	}
}
