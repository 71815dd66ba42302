package benchkit

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

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
