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

	"petrel/lab"
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
		pd, pn, err := lab.TableDigest(ctx, primary, db+"."+t)
		if err != nil {
			return c, fmt.Errorf("primary: %w", err)
		}
		rd, rn, err := lab.TableDigest(ctx, replica, db+"."+t)
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
	return lab.ListTables(ctx, db, schema)
}
