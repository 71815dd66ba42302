package clonesql

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dolthub/vitess/go/mysql"

	"petrel/clone"
	"petrel/sqlengine"
	"petrel/storage"
)

// fakeDonor serves CLONE SNAPSHOT (the rows given), CLONE READ (read's
// answer) and CLONE END over a real engine on loopback, and returns its
// port.
func fakeDonor(t *testing.T, snapshot [][]string, read func(file string, off, n int64) (string, string)) int {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, err := storage.Open(storage.Options{Dir: t.TempDir(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e, err := sqlengine.New(sqlengine.Options{Store: st, ServerUUID: "3e11fa47-71ca-11e1-9e33-c80aa9429562", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{"ID", "FORMAT", "VERSION", "GTID_EXECUTED", "BINLOG_FILE", "BINLOG_POSITION", "FILE", "SIZE"}
	e.RegisterAdmin(`CLONE SNAPSHOT`, 0, func(context.Context, *sqlengine.Session, []string) (*sqlengine.AdminResult, error) {
		res := &sqlengine.AdminResult{Columns: cols}
		for _, r := range snapshot {
			row := make([]*string, len(r))
			for i := range r {
				row[i] = sqlengine.Str(r[i])
			}
			res.Rows = append(res.Rows, row)
		}
		return res, nil
	})
	e.RegisterAdmin(`CLONE READ '([0-9a-f]+)' FILE '([^']+)' OFFSET ([0-9]+) LENGTH ([0-9]+)`, 0, func(_ context.Context, _ *sqlengine.Session, m []string) (*sqlengine.AdminResult, error) {
		off, _ := strconv.ParseInt(m[3], 10, 64)
		n, _ := strconv.ParseInt(m[4], 10, 64)
		data, sum := read(m[2], off, n)
		return &sqlengine.AdminResult{Columns: []string{"DATA", "CRC32C"}, Rows: [][]*string{{sqlengine.Str(data), sqlengine.Str(sum)}}}, nil
	})
	e.RegisterAdmin(`CLONE END '([0-9a-f]+)'`, 0, func(context.Context, *sqlengine.Session, []string) (*sqlengine.AdminResult, error) {
		return &sqlengine.AdminResult{}, nil
	})
	if err := e.CreateRoot("pw"); err != nil {
		t.Fatal(err)
	}
	srv, err := e.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	_, port, _ := net.SplitHostPort(srv.Addr())
	p, _ := strconv.Atoi(port)
	return p
}

// TestRecipientRefusesABadDonor: a donor of another clone format is
// ER_CLONE_DONOR_VERSION (3864); a manifest naming a file outside the
// datadir's parts, or one without the binary log, and a chunk whose
// checksum does not match are ER_CLONE_PROTOCOL (3863); REQUIRE SSL
// against a donor without TLS is ER_CLONE_DONOR (3862); none of them
// leaves anything in the target.
func TestRecipientRefusesABadDonor(t *testing.T) {
	row := func(format, file, size string) []string {
		return []string{"00ab", format, "8.0.40-petrel", "", "binlog.000002", "126", file, size}
	}
	good := [][]string{row("1", "binlog/binlog.000002", "10"), row("1", "binlog/binlog.index", "17")}
	badSum := func(string, int64, int64) (string, string) { return "0123456789", "12345" }
	for _, tc := range []struct {
		what     string
		snapshot [][]string
		want     uint16
		text     string
		ssl      string
	}{
		{"another format", [][]string{row("2", "binlog/binlog.000002", "10"), row("2", "binlog/binlog.index", "17")}, 3864, "clone format: 2", ""},
		{"a file outside the datadir", append([][]string{row("1", "data/../../etc/passwd", "10")}, good...), 3863, "bad file", ""},
		{"an absolute file", append([][]string{row("1", "/etc/passwd", "10")}, good...), 3863, "bad file", ""},
		{"no binary log", [][]string{row("1", "data/000001.sst", "10")}, 3863, "lacks the binary log", ""},
		{"a bad checksum", good, 3863, "checksum mismatch", ""},
		// The fake donor has no TLS: REQUIRE SSL cannot clone from it
		// (the default, preferred, falls back to a plain link above).
		{"REQUIRE SSL without TLS", good, 3862, "SSL", "required"},
	} {
		t.Run(tc.what, func(t *testing.T) {
			port := fakeDonor(t, tc.snapshot, badSum)
			dir := filepath.Join(t.TempDir(), "target")
			_, err := clone.Fetch(context.Background(), clone.FetchOptions{Host: "127.0.0.1", Port: port, User: "root", Password: "pw", Datadir: dir, Timeout: 10 * time.Second, SSLMode: tc.ssl,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			var se *mysql.SQLError
			if !errors.As(sqlError(err), &se) || se.Num != int(tc.want) || !strings.Contains(se.Message, tc.text) {
				t.Fatalf("Fetch: %v; as SQL %v; want %d mentioning %q", err, sqlError(err), tc.want, tc.text)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("the refused clone left %d entries in the target", len(entries))
			}
		})
	}
}
