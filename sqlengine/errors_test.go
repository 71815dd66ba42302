package sqlengine

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"petrel/sqlengine/sqlerr"

	"github.com/dolthub/vitess/go/mysql"

	"petrel/internal/base"
	"petrel/storage"
	"petrel/storage/keys"
)

// TestClientErrorNumbers: every Petrel error class reaches clients with
// MySQL's number and SQLSTATE, and no error number below 1000 (an errno,
// such as the 3 that once came from a failed fdatasync) ever does.
func TestClientErrorNumbers(t *testing.T) {
	eio := fmt.Errorf("binlog: fsync: %w", syscall.EIO)
	for _, tc := range []struct {
		name  string
		err   error
		num   int
		state string
		text  string
	}{
		{"writes refused", base.Wrap(base.ClassWritesRefused, eio, "storage: writes refused until the server is restarted"), 1026, "HY000", "Error writing file (errno: 5 - Input/output error): storage: writes refused"},
		{"datadir removed", base.Wrap(base.ClassWritesRefused, &os.PathError{Op: "stat", Path: "/var/lib/petrel", Err: syscall.ENOENT}, "node: the datadir was removed"), 1026, "HY000",
			"Error writing file '/var/lib/petrel' (errno: 2 - No such file or directory): node: the datadir was removed"},
		{"sstable write failed", base.Wrap(base.ClassWritesRefused, fmt.Errorf("creating object 000012: %w", &os.PathError{Op: "write", Path: "/d/data/000012.sst", Err: syscall.EIO}), "storage: writes refused until the server is restarted"), 1026, "HY000",
			"Error writing file '/d/data/000012.sst' (errno: 5 - Input/output error)"},
		{"read failed", base.Wrap(base.ClassStorageIO, fmt.Errorf("pebble: %w", &os.PathError{Op: "read", Path: "/d/data/000007.sst", Err: syscall.EIO}), "storage: read failed"), 1030, "HY000",
			"Got error 5 - 'Input/output error' from storage engine: storage: read failed"},
		{"shutdown", base.Errorf(base.ClassShutdown, "storage: the server is shutting down"), 1053, "08S01", "Server shutdown in progress"},
		{"disk full", base.Wrap(base.ClassDiskFull, syscall.ENOSPC, "storage: disk full"), 1021, "HY000", "Disk full"},
		{"outcome unknown", base.Wrap(base.ClassOutcomeUnknown, eio, "storage: commit outcome unknown"), 1180, "HY000", "may or may not be committed"},
		{"table changed after the snapshot", base.Errorf(base.ClassDefChanged, "storage: table d.t changed after the transaction's snapshot was taken"), 1412, "HY000", "Table definition has changed, please retry transaction"},
		{"unknown system variable", mysql.NewSQLError(mysql.ERUnknownError, "HY000", "Unknown system variable 'tx_isolation'"), 1193, "HY000", "tx_isolation"},
		{"raw errno number", mysql.NewSQLError(3, "HY000", "fdatasync: bad file descriptor"), 1105, "HY000", "bad file descriptor"},
		{"errno parsed from a message", mysql.NewSQLErrorFromError(errors.New("wrapped: x (errno 3) (sqlstate HY000)")), 1105, "HY000", "wrapped"},
		// GMS's own errors MySQL gives a number for.
		{"invalid UTF-8", mysql.NewSQLError(1105, "HY000", "invalid string for charset utf8mb4: '[233 10]'"), 1366, "HY000", `Incorrect string value: '\xE9\x0A'`},
		{"too long", mysql.NewSQLError(1105, "HY000", "string 'é' is too large for column 'c'"), 1406, "22001", "Data too long for column 'c'"},
		// A string a column's character set cannot hold (keys.CheckRow).
		{"string error", stringError(keys.NameColumn(&keys.StringError{Charset: "latin1", Value: `\xC4\x80`}, "l"), 3), 1366, "HY000", `Incorrect string value: '\xC4\x80' for column 'l' at row 3`},
	} {
		err := sqlerr.ClientError(tc.err)
		var se *mysql.SQLError
		if !errors.As(err, &se) {
			t.Errorf("%s: %v is not a MySQL error", tc.name, err)
			continue
		}
		if se.Num != tc.num || se.State != tc.state || !strings.Contains(se.Message, tc.text) {
			t.Errorf("%s: got %d (%s) %q, want %d (%s) containing %q", tc.name, se.Num, se.State, se.Message, tc.num, tc.state, tc.text)
		}
	}
}

// TestIsolationOptionFile: the option file's transaction-isolation sets
// the global level, SERIALIZABLE is refused (the server does not start)
// rather than silently weakened, and MySQL 5.7's tx_isolation is unknown.
func TestIsolationOptionFile(t *testing.T) {
	g := NewGlobals()
	global := func() string { return g.String("transaction_isolation", "") }
	if err := CheckVariables(g, map[string]string{"transaction-isolation": "READ-COMMITTED"}); err != nil {
		t.Fatalf("transaction-isolation=READ-COMMITTED: %v", err)
	}
	if g := global(); g != "READ-COMMITTED" {
		t.Errorf("global transaction_isolation = %q after the option file's READ-COMMITTED", g)
	}
	err := CheckVariables(g, map[string]string{"transaction-isolation": "SERIALIZABLE"})
	if err == nil || !strings.Contains(err.Error(), "SERIALIZABLE") {
		t.Errorf("transaction-isolation=SERIALIZABLE: %v; want a refusal naming SERIALIZABLE", err)
	}
	if g := global(); g == "SERIALIZABLE" {
		t.Errorf("global transaction_isolation is SERIALIZABLE after the refusal")
	}
	if err := CheckVariables(g, map[string]string{"tx_isolation": "READ-COMMITTED"}); err == nil || !strings.Contains(err.Error(), "unknown variable") {
		t.Errorf("tx_isolation in the option file: %v; want unknown variable", err)
	}
	if isolationOf("READ-UNCOMMITTED") != storage.ReadCommitted || isolationOf("READ-COMMITTED") != storage.ReadCommitted || isolationOf("REPEATABLE-READ") != storage.RepeatableRead {
		t.Error("isolationOf maps the levels wrongly")
	}
}
