package lab

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Small SQL helpers the lab's tools share (labrun, bench): reading one
// status row, a schema's tables, GTID counts of both servers' forms, and a
// table's digest.

// DigestTimeout bounds TableDigest.
const DigestTimeout = 2 * time.Minute

// QueryRow returns the first row of q as column -> value ("NULL" for
// NULL), or nil when q returns no row. ctx bounds the query.
func QueryRow(ctx context.Context, db *sql.DB, q string) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil || !rows.Next() {
		return nil, errors.Join(err, rows.Err())
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	m := make(map[string]string, len(cols))
	for i, c := range cols {
		m[c] = "NULL"
		if vals[i].Valid {
			m[c] = vals[i].String
		}
	}
	return m, nil
}

// ListTables returns the names of schema's tables, sorted. ctx bounds
// the query.
func ListTables(ctx context.Context, db *sql.DB, schema string) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SHOW TABLES FROM "+schema)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	slices.Sort(names)
	return names, rows.Err()
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

// GTIDContains says whether the MySQL GTID set super holds every
// transaction of sub (after a failover the sets hold the old primary's
// uuid and the new one's, so counting one uuid no longer tells).
func GTIDContains(super, sub string) (bool, error) {
	sup, err := gtidIntervals(super)
	if err != nil {
		return false, err
	}
	want, err := gtidIntervals(sub)
	if err != nil {
		return false, err
	}
	for uuid, ivs := range want {
		for _, w := range ivs {
			if !slices.ContainsFunc(sup[uuid], func(h [2]int64) bool { return h[0] <= w[0] && w[1] <= h[1] }) {
				return false, nil
			}
		}
	}
	return true, nil
}

// gtidIntervals parses a GTID set into its intervals by lower-case uuid.
func gtidIntervals(set string) (map[string][][2]int64, error) {
	out := map[string][][2]int64{}
	for _, part := range strings.Split(set, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		uuid, intervals, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("bad GTID set %q", set)
		}
		uuid = strings.ToLower(uuid)
		for _, iv := range strings.Split(intervals, ":") {
			lo, hi, isRange := strings.Cut(iv, "-")
			if !isRange {
				hi = lo
			}
			start, err1 := strconv.ParseInt(lo, 10, 64)
			end, err2 := strconv.ParseInt(hi, 10, 64)
			if err := errors.Join(err1, err2); err != nil || end < start {
				return nil, fmt.Errorf("bad GTID set %q", set)
			}
			out[uuid] = append(out[uuid], [2]int64{start, end})
		}
	}
	return out, nil
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

// TableDigest hashes every row of table in primary-key order (the
// tables the lab's tools load have the key id), each value
// length-prefixed so that column boundaries count; it returns the
// digest and the row count, within DigestTimeout.
func TableDigest(ctx context.Context, db *sql.DB, table string) (string, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, DigestTimeout)
	defer cancel()
	rows, err := db.QueryContext(ctx, "SELECT * FROM "+table+" ORDER BY id")
	if err != nil {
		return "", 0, fmt.Errorf("digest %s: %w", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", 0, fmt.Errorf("digest %s: %w", table, err)
	}
	h := sha256.New()
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var n int64
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return "", 0, fmt.Errorf("digest %s: %w", table, err)
		}
		for _, v := range vals {
			if v == nil {
				h.Write([]byte{0xff})
			} else {
				fmt.Fprintf(h, "%d:%s", len(v), v)
			}
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return "", 0, fmt.Errorf("digest %s: %w", table, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
