package e2e

import (
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/lab"
)

// packetLimit is the max_allowed_packet the test sets when the server's
// is larger, so that "over the limit" stays cheap to send.
const packetLimit = 4 << 20

// TestOversizedPacket sends a statement larger than max_allowed_packet.
// The server must refuse it cleanly (error 1153, or close the
// connection), keep running, and store nothing of it.
func TestOversizedPacket(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	root := rootDB(t, p, "")
	mustExec(t, ctx, root,
		"CREATE DATABASE pk",
		"CREATE TABLE pk.t (id INT PRIMARY KEY, b LONGBLOB)")

	limit := queryInt(t, ctx, root, "SELECT @@GLOBAL.max_allowed_packet")
	t.Logf("server max_allowed_packet = %d", limit)
	if limit > packetLimit {
		if _, err := root.ExecContext(ctx, "SET GLOBAL max_allowed_packet = ?", packetLimit); err != nil {
			t.Fatalf("max_allowed_packet is %d and SET GLOBAL max_allowed_packet = %d failed: %v", limit, packetLimit, err)
		}
		limit = packetLimit
	}

	// A new connection takes the lowered limit. The driver's own limit is
	// raised so that it sends the statement instead of refusing it itself.
	cfg := clientConfig(t, p, "root", rootPassword, "pk")
	cfg.MaxAllowedPacket = int(2*limit + 1<<20)
	big := openConfig(t, cfg)
	big.SetMaxOpenConns(1)
	if v := queryInt(t, ctx, big, "SELECT @@SESSION.max_allowed_packet"); v != limit {
		t.Errorf("new session: @@SESSION.max_allowed_packet = %d, want the global %d", v, limit)
	}
	stmt := "INSERT INTO t VALUES (1, '" + strings.Repeat("a", int(2*limit)) + "')"
	start := time.Now()
	_, err := big.ExecContext(ctx, stmt)
	elapsed := time.Since(start)
	refused := err != nil
	switch {
	case err == nil:
		t.Errorf("a %d-byte INSERT succeeded with max_allowed_packet = %d; want error %d or a closed connection",
			len(stmt), limit, erNetPacketTooLarge)
	case errNo(err) == erNetPacketTooLarge:
		t.Logf("refused with 1153 after %v: %v", elapsed, err)
	case errNo(err) != 0:
		t.Errorf("a %d-byte INSERT failed with error %d (%v); want %d or a closed connection", len(stmt), errNo(err), err, erNetPacketTooLarge)
	case isConnClosed(err):
		t.Logf("connection closed after %v: %v", elapsed, err)
	default:
		t.Errorf("a %d-byte INSERT failed with %v; want error %d or a closed connection", len(stmt), err, erNetPacketTooLarge)
	}

	// The server is still up, and nothing of a refused statement was
	// stored. (If it was accepted, the failure is reported above and the
	// row is expected.)
	after := openConfig(t, clientConfig(t, p, "root", rootPassword, "pk"))
	if v := queryInt(t, ctx, after, "SELECT 1"); v != 1 {
		t.Errorf("SELECT 1 after the oversized packet returned %d", v)
	}
	want := int64(0)
	if !refused {
		want = 1
	}
	if n := queryInt(t, ctx, after, "SELECT COUNT(*) FROM t WHERE id = 1"); n != want {
		t.Errorf("%d rows with id 1 after the INSERT, want %d (no partial row of a refused statement)", n, want)
	}
	mustExec(t, ctx, after, "INSERT INTO t VALUES (2, 'small')")
	if b := queryString(t, ctx, after, "SELECT b FROM t WHERE id = 2"); b != "small" {
		t.Errorf("small INSERT after the oversized one: read back %q, want \"small\"", b)
	}
}

// isConnClosed reports whether err means the server closed the
// connection. A timeout does not count: it means the server hung.
func isConnClosed(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	return errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || ne != nil
}
