package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
)

// digestTimeout bounds reading one table.
const digestTimeout = 5 * time.Minute

// digestCheck is one comparison of every table of the benchmark database.
type digestCheck struct {
	when   string
	tables int
	rows   int64
	digest string   // over every table of the primary, in name order
	diffs  []string // tables whose rows differ (empty when identical)
}

// compareTables digests every table of db on both servers. A difference
// is an error naming the tables.
func compareTables(ctx context.Context, primary, replica *sql.DB, db string) (digestCheck, error) {
	var c digestCheck
	ptables, err := listTables(ctx, primary, db)
	if err != nil {
		return c, fmt.Errorf("primary: %w", err)
	}
	rtables, err := listTables(ctx, replica, db)
	if err != nil {
		return c, fmt.Errorf("replica: %w", err)
	}
	if !slices.Equal(ptables, rtables) {
		c.diffs = []string{"table list"}
		return c, fmt.Errorf("MISMATCH: primary has tables %v, replica %v", ptables, rtables)
	}
	all := sha256.New()
	for _, t := range ptables {
		pd, pn, err := tableDigest(ctx, primary, db+"."+t)
		if err != nil {
			return c, fmt.Errorf("primary: %w", err)
		}
		rd, rn, err := tableDigest(ctx, replica, db+"."+t)
		if err != nil {
			return c, fmt.Errorf("replica: %w", err)
		}
		if pd != rd || pn != rn {
			c.diffs = append(c.diffs, fmt.Sprintf("%s (primary %d rows %.12s, replica %d rows %.12s)", t, pn, pd, rn, rd))
		}
		fmt.Fprintf(all, "%s:%s\n", t, pd)
		c.tables++
		c.rows += pn
	}
	c.digest = hex.EncodeToString(all.Sum(nil))
	if len(c.diffs) > 0 {
		return c, fmt.Errorf("MISMATCH: replica rows differ in %s", strings.Join(c.diffs, "; "))
	}
	return c, nil
}

func listTables(ctx context.Context, db *sql.DB, schema string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
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

// tableDigest hashes every row of table in primary-key order (sysbench
// tables have the key id), each value length-prefixed so that column
// boundaries count.
func tableDigest(ctx context.Context, db *sql.DB, table string) (string, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, digestTimeout)
	defer cancel()
	rows, err := db.QueryContext(ctx, "SELECT * FROM "+table+" ORDER BY id")
	if err != nil {
		return "", 0, fmt.Errorf("digest %s: %w", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", 0, err
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
