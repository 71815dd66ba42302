package benchkit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Server is what lab.Petrel and lab.MariaDB have in common for the
// benchmarks.
type Server interface {
	Port() int
	Stop(ctx context.Context) error
	Log() string
	DB(db string) (*sql.DB, error)
}

// ServerLogs returns the tails of a primary's and a replica's output
// (either may be nil), headed by system and role.
func ServerLogs(system string, primary, replica Server) string {
	var b strings.Builder
	for _, r := range []struct {
		role string
		s    Server
	}{{"primary", primary}, {"replica", replica}} {
		if r.s != nil {
			fmt.Fprintf(&b, "--- %s %s ---\n%s\n", system, r.role, LastLines(r.s.Log(), 30))
		}
	}
	return b.String()
}

// Querier runs the benchmarks' own statements, each bounded in time.
type Querier struct {
	// Timeout bounds one statement.
	Timeout time.Duration
	// Secret, when set, is replaced by *** in error messages.
	Secret string
}

// String runs q and returns its single value ("" for NULL).
func (qr Querier) String(ctx context.Context, db *sql.DB, q string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, qr.Timeout)
	defer cancel()
	var s sql.NullString
	if err := db.QueryRowContext(ctx, q).Scan(&s); err != nil {
		return "", fmt.Errorf("%s: %w", q, err)
	}
	return s.String, nil
}

// Exec runs stmts in order and stops at the first error.
func (qr Querier) Exec(ctx context.Context, db *sql.DB, stmts ...string) error {
	for _, q := range stmts {
		qctx, cancel := context.WithTimeout(ctx, qr.Timeout)
		_, err := db.ExecContext(qctx, q)
		cancel()
		if err != nil {
			return fmt.Errorf("%s: %w", qr.redact(q), err)
		}
	}
	return nil
}

func (qr Querier) redact(q string) string {
	if qr.Secret == "" {
		return q
	}
	return strings.ReplaceAll(q, qr.Secret, "***")
}

// GTIDCount returns N such that the MySQL GTID set holds uuid:1-N (the
// primary's transactions applied in order), 0 when it holds none of uuid.
// Sets look like "uuid:1-5:7,\nuuid2:1-3".
func GTIDCount(set, uuid string) (int64, error) {
	for _, part := range strings.Split(set, ",") {
		sid, intervals, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok || !strings.EqualFold(sid, uuid) {
			continue
		}
		first, _, _ := strings.Cut(intervals, ":")
		lo, hi, isRange := strings.Cut(first, "-")
		if !isRange {
			hi = lo
		}
		start, err1 := strconv.ParseInt(lo, 10, 64)
		end, err2 := strconv.ParseInt(hi, 10, 64)
		if err := errors.Join(err1, err2); err != nil {
			return 0, fmt.Errorf("bad GTID set %q: %w", set, err)
		}
		if start != 1 {
			return 0, nil
		}
		return end, nil
	}
	return 0, nil
}

// MariaDBSeq returns the sequence number of domain 0 in a MariaDB GTID
// position such as "0-1-1234" (0 for an empty position).
func MariaDBSeq(pos string) (int64, error) {
	for _, g := range strings.Split(pos, ",") {
		parts := strings.Split(strings.TrimSpace(g), "-")
		if len(parts) != 3 || parts[0] != "0" {
			continue
		}
		n, err := strconv.ParseInt(parts[2], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("bad MariaDB GTID position %q: %w", pos, err)
		}
		return n, nil
	}
	return 0, nil
}
