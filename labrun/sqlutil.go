package labrun

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"petrel/lab"
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
	return lab.QueryRow(ctx, db, q)
}

func listTables(ctx context.Context, db *sql.DB) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	return lab.ListTables(ctx, db, LabDB)
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
		if attempt < endStateAttempts && lab.Sleep(ctx, endStateRetry) != nil {
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
		d, n, err := lab.TableDigest(ctx, c.PDB, LabDB+"."+t)
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
				d, n, err := lab.TableDigest(ctx, db, LabDB+"."+t)
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
