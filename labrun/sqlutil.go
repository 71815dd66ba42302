package labrun

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

// digestTimeout bounds reading one table for the end-state check.
const digestTimeout = 2 * time.Minute

func qString(ctx context.Context, db *sql.DB, q string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	var s sql.NullString
	if err := db.QueryRowContext(ctx, q).Scan(&s); err != nil {
		return "", fmt.Errorf("%s: %w", q, err)
	}
	return s.String, nil
}

// qExec runs stmts in order, each bounded, hiding the replication
// password in errors.
func qExec(ctx context.Context, db *sql.DB, stmts ...string) error {
	for _, q := range stmts {
		qctx, cancel := context.WithTimeout(ctx, queryTimeout)
		_, err := db.ExecContext(qctx, q)
		cancel()
		if err != nil {
			return fmt.Errorf("%s: %w", strings.NewReplacer("'"+replPassword+"'", "'***'", "'"+petrelPassword+"'", "'***'").Replace(q), err)
		}
	}
	return nil
}

// qRow returns the first row of q as column -> value ("NULL" for NULL),
// nil when there is none.
func qRow(ctx context.Context, db *sql.DB, q string) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
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

// gtidCount returns N such that the MySQL GTID set holds uuid:1-N.
func gtidCount(set, uuid string) (int64, error) {
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

// mariadbSeq returns the sequence number of domain 0 in a MariaDB GTID
// position such as "0-1-1234".
func mariadbSeq(pos string) (int64, error) {
	for _, g := range strings.Split(pos, ",") {
		parts := strings.Split(strings.TrimSpace(g), "-")
		if len(parts) != 3 || parts[0] != "0" {
			continue
		}
		return strconv.ParseInt(parts[2], 10, 64)
	}
	return 0, nil
}

// tableDigest hashes every row of table in primary-key order (the lab's
// tables have the key id), each value length-prefixed.
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
			return "", 0, err
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
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

func listTables(ctx context.Context, db *sql.DB) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	rows, err := db.QueryContext(ctx, "SHOW TABLES FROM "+LabDB)
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

// EndState waits until every replica has caught up, then compares every
// table of the lab database on every replica with the primary's by
// digest. It returns one Check per replica.
func (c *Cluster) EndState(ctx context.Context, round int, timeout time.Duration) []Check {
	// A difference can be a commit still landing (a client gone while its
	// commit was queued): retry a few times, and say so in the detail.
	var out []Check
	for attempt := 1; attempt <= endStateAttempts; attempt++ {
		out = c.endState(ctx, round, timeout)
		if !slices.ContainsFunc(out, func(c Check) bool { return !c.OK }) || ctx.Err() != nil {
			if attempt > 1 {
				for i := range out {
					out[i].Detail += fmt.Sprintf(" (equal at attempt %d of %d, %v apart)", attempt, endStateAttempts, endStateRetry)
				}
			}
			return out
		}
		if attempt < endStateAttempts && sleepCtx(ctx, endStateRetry) != nil {
			break
		}
	}
	return out
}

const (
	endStateAttempts = 3
	endStateRetry    = time.Second
)

func (c *Cluster) endState(ctx context.Context, round int, timeout time.Duration) []Check {
	fail := func(detail string) []Check {
		return []Check{{System: c.System, Round: round, What: "caught up", OK: false, Detail: detail}}
	}
	if err := c.WaitCaughtUp(ctx, timeout); err != nil {
		return fail(err.Error())
	}
	ptables, err := listTables(ctx, c.PDB)
	if err != nil {
		return fail("primary: " + err.Error())
	}
	pd, pn := map[string]string{}, map[string]int64{}
	var rows int64
	for _, t := range ptables {
		d, n, err := tableDigest(ctx, c.PDB, LabDB+"."+t)
		if err != nil {
			return fail("primary: " + err.Error())
		}
		pd[t], pn[t] = d, n
		rows += n
	}
	var out []Check
	for i, db := range c.RDBs {
		chk := Check{System: c.System, Round: round, What: fmt.Sprintf("replica%d rows = primary rows", i+1), OK: true}
		rtables, err := listTables(ctx, db)
		switch {
		case err != nil:
			chk.OK, chk.Detail = false, err.Error()
		case !slices.Equal(rtables, ptables):
			chk.OK, chk.Detail = false, fmt.Sprintf("tables %v, primary %v", rtables, ptables)
		default:
			var diffs []string
			for _, t := range ptables {
				d, n, err := tableDigest(ctx, db, LabDB+"."+t)
				if err != nil {
					diffs = append(diffs, t+": "+err.Error())
				} else if d != pd[t] {
					diffs = append(diffs, fmt.Sprintf("%s (primary %d rows, replica %d%s)", t, pn[t], n, idDiff(ctx, c.PDB, db, LabDB+"."+t)))
				}
			}
			if len(diffs) > 0 {
				chk.OK, chk.Detail = false, "differ: "+strings.Join(diffs, ", ")
			} else {
				chk.Detail = fmt.Sprintf("%d tables, %d rows, sha256 equal", len(ptables), rows)
			}
		}
		out = append(out, chk)
	}
	return out
}

// idDiff names up to five ids only the primary or only the replica holds,
// so a mismatch in the report says which rows.
func idDiff(ctx context.Context, primary, replica *sql.DB, table string) string {
	ids := func(db *sql.DB) (map[int64]int, error) {
		ctx, cancel := context.WithTimeout(ctx, digestTimeout)
		defer cancel()
		rows, err := db.QueryContext(ctx, "SELECT id FROM "+table)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		m := map[int64]int{}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return nil, err
			}
			m[id]++
		}
		return m, rows.Err()
	}
	p, err1 := ids(primary)
	r, err2 := ids(replica)
	if err1 != nil || err2 != nil {
		return ""
	}
	only := func(a, b map[int64]int) []int64 {
		var out []int64
		for id := range a {
			if b[id] == 0 {
				out = append(out, id)
			}
		}
		slices.Sort(out)
		return out[:min(len(out), 5)]
	}
	dups := func(a map[int64]int) []string {
		var out []string
		for id, n := range a {
			if n > 1 {
				out = append(out, fmt.Sprintf("%d×%d", id, n))
			}
		}
		slices.Sort(out)
		return out[:min(len(out), 5)]
	}
	return fmt.Sprintf("; ids only on the primary %v, only on the replica %v; ids read more than once: primary %v, replica %v",
		only(p, r), only(r, p), dups(p), dups(r))
}
