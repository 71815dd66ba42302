package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// gosqlCompressReport is testdata/gosqlcompress's output.
type gosqlCompressReport struct {
	Compression string   `json:"compression"`
	Algorithm   string   `json:"algorithm"`
	Rows        int64    `json:"rows"`
	SumN        int64    `json:"sum_n"`
	SentDigest  string   `json:"sent_digest"`
	ReadDigest  string   `json:"read_digest"`
	LargeSent   []string `json:"large_sent"`
	LargeRead   []string `json:"large_read"`
	ScanDigests []string `json:"scan_digests"`
	LargeServer []string `json:"large_server"`
	Multi       []string `json:"multi"`
}

// TestGoSQLDriverCompress: go-sql-driver/mysql v1.10.1 (a driver written
// elsewhere; compress=true is zlib, CLIENT_COMPRESS) runs the same workload
// with and without compression through a byte-counting link: many rows,
// rows of 1, 5 and 17 MiB (the last crosses a 16 MiB packet), a
// multi-statement update and multi-statement reads. Both runs read back
// exactly what they sent (client-side and server-side SHA-256 agree; so
// do three plain scans, the last two the scan fast path's, in gathered
// writes), give identical results, the compressed session reports
// Compression ON with zlib and the plain one OFF, and the compressed run
// moves under half the plain run's bytes.
func TestGoSQLDriverCompress(t *testing.T) {
	ctx := testContext(t, 5*time.Minute)
	bin := filepath.Join(t.TempDir(), "gosqlcompress")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	build.Dir = "testdata/gosqlcompress"
	build.Env = append(build.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build testdata/gosqlcompress: %v\n%s", err, out)
	}
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	link, err := lab.StartLink(fmt.Sprintf("127.0.0.1:%d", p.Port()))
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	db := rootDB(t, p, "")
	mustExec(t, ctx, db, "CREATE DATABASE zc")

	run := func(compress bool, table string) (gosqlCompressReport, int64) {
		t.Helper()
		before := link.Stats()
		fastBefore := globalStatus(t, ctx, db, "Petrel_fast_path_reads")
		dsn := fmt.Sprintf("root:%s@tcp(%s)/zc?multiStatements=true&readTimeout=60s&writeTimeout=60s&compress=%v", rootPassword, link.Addr(), compress)
		out, err := exec.CommandContext(ctx, bin, dsn, table).Output()
		if err != nil {
			var ee *exec.ExitError
			var stderr []byte
			if errors.As(err, &ee) {
				stderr = ee.Stderr
			}
			t.Fatalf("compress=%v: %v\n%s\nserver log:\n%s", compress, err, stderr, tail(p.Log(), 3000))
		}
		var rep gosqlCompressReport
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Fatalf("compress=%v: %v in %q", compress, err, out)
		}
		after := link.Stats()
		// The second and third plain scans are the scan fast path's.
		if fast := globalStatus(t, ctx, db, "Petrel_fast_path_reads") - fastBefore; fast < 2 {
			t.Errorf("compress=%v: %d fast-path reads, want the 2 scans at least", compress, fast)
		}
		return rep, (after.Upstream - before.Upstream) + (after.Downstream - before.Downstream)
	}
	z, zBytes := run(true, "tz")
	plain, plainBytes := run(false, "tp")
	t.Logf("wire bytes: compressed %d, plain %d (%.2fx)", zBytes, plainBytes, float64(plainBytes)/float64(zBytes))

	if z.Compression != "ON" || z.Algorithm != "zlib" {
		t.Errorf("compressed session: Compression %q, Compression_algorithm %q; want ON, zlib", z.Compression, z.Algorithm)
	}
	if plain.Compression != "OFF" {
		t.Errorf("plain session: Compression %q, want OFF", plain.Compression)
	}
	for _, r := range []struct {
		name string
		rep  gosqlCompressReport
	}{{"compressed", z}, {"plain", plain}} {
		rep := r.rep
		for i, d := range rep.ScanDigests {
			if d != rep.SentDigest {
				t.Errorf("%s: scan %d read %s, sent %s", r.name, i, d, rep.SentDigest)
			}
		}
		if len(rep.ScanDigests) != 3 {
			t.Errorf("%s: %d scans", r.name, len(rep.ScanDigests))
		}
		if rep.Rows != 3003 || rep.SentDigest != rep.ReadDigest || len(rep.LargeSent) != 3 ||
			!reflect.DeepEqual(rep.LargeSent, rep.LargeRead) || !reflect.DeepEqual(rep.LargeSent, rep.LargeServer) {
			t.Errorf("%s: %d rows, digest sent %s read %s, large rows sent %v read %v server %v", r.name, rep.Rows,
				rep.SentDigest, rep.ReadDigest, rep.LargeSent, rep.LargeRead, rep.LargeServer)
		}
	}
	if z.SentDigest != plain.SentDigest {
		t.Errorf("the runs sent different data: %s vs %s", z.SentDigest, plain.SentDigest)
	}
	// n = 7*id for ids 0..2999 and 1 for the 3 large rows; then ids 0..9
	// got +1 and ids 0..4 were doubled (adding their n+1 once more).
	wantSum := int64(7*2999*3000/2+3) + 10
	for id := int64(0); id < 5; id++ {
		wantSum += 7*id + 1
	}
	if z.SumN != wantSum || plain.SumN != wantSum {
		t.Errorf("SUM(n): compressed %d, plain %d, want %d", z.SumN, plain.SumN, wantSum)
	}
	if len(z.Multi) != 5 || !reflect.DeepEqual(z.Multi, plain.Multi) || z.Multi[0] != fmt.Sprintf("0:3003 %d", wantSum) ||
		!strings.HasPrefix(z.Multi[4], "2:600000 ") {
		t.Errorf("multi-statement results: compressed %v, plain %v", z.Multi, plain.Multi)
	}
	// The server holds the same in both tables.
	const agg = "SELECT CONCAT(COUNT(*), ' ', SUM(LENGTH(s)), ' ', SUM(n)) FROM zc."
	if a, b := queryString(t, ctx, db, agg+"tz"), queryString(t, ctx, db, agg+"tp"); a != b || !strings.HasPrefix(a, "3003 ") {
		t.Errorf("zc.tz %q, zc.tp %q", a, b)
	}
	if zBytes*2 > plainBytes {
		t.Errorf("compressed run moved %d bytes, plain %d: compression was not used", zBytes, plainBytes)
	}
}
