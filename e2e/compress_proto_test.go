package e2e

import (
	"crypto/sha256"
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
