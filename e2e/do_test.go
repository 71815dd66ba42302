package e2e

import (
	"testing"
	"time"

	"petrel/lab"
)

// TestDoStatement checks MySQL's DO: it evaluates its expressions (their
// side effects and errors happen) and answers OK with no result set, as
// text, in a multi-statement and as a prepared statement.
func TestDoStatement(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	cfg := clientConfig(t, p, "root", rootPassword, "")
	cfg.MultiStatements = true
	db := openConfig(t, cfg)
	c := conn(t, ctx, db)

	res, err := c.ExecContext(ctx, "DO 1, 2 + 3")
	if err != nil {
		t.Fatalf("DO 1, 2 + 3: %v", err)
	}
	if n, _ := res.RowsAffected(); n != 0 {
		t.Errorf("DO: %d rows affected, want 0", n)
	}
	// The expressions run: a lock DO takes is held, as another
	// connection sees.
	other := conn(t, ctx, db)
	mustExec(t, ctx, c, "DO GET_LOCK('petrel_do', 0)")
	if v := queryInt(t, ctx, other, "SELECT IS_FREE_LOCK('petrel_do')"); v != 0 {
		t.Errorf("IS_FREE_LOCK after DO GET_LOCK = %d, want 0", v)
	}
	mustExec(t, ctx, c, "DO RELEASE_LOCK('petrel_do')")
	if v := queryInt(t, ctx, other, "SELECT IS_FREE_LOCK('petrel_do')"); v != 1 {
		t.Errorf("IS_FREE_LOCK after DO RELEASE_LOCK = %d, want 1", v)
	}
	// A multi-statement: DO gives no result set, the SELECT after it one.
	rows, err := c.QueryContext(ctx, "DO 1; SELECT 7; DO 2")
	if err != nil {
		t.Fatalf("DO 1; SELECT 7; DO 2: %v", err)
	}
	var got []int64
	sets := 0
	for {
		if cols, _ := rows.Columns(); len(cols) > 0 {
			sets++
		}
		for rows.Next() {
			var v int64
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			got = append(got, v)
		}
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("multi-statement: %v", err)
	}
	rows.Close()
	if sets != 1 || len(got) != 1 || got[0] != 7 {
		t.Errorf("DO 1; SELECT 7; DO 2: %d result sets with columns, values %v; want 1 set holding 7", sets, got)
	}
	// Evaluation errors reach the client.
	_, err = c.ExecContext(ctx, "DO (SELECT 1 UNION SELECT 2)")
	wantErrNo(t, "DO of a two-row subquery", err, 1242) // ER_SUBQUERY_NO_1_ROW
	_, err = c.ExecContext(ctx, "DO")
	wantErrNo(t, "DO without expressions", err, erParse)

	// Prepared (binary protocol): no result columns, executes with
	// parameters.
	st, err := c.PrepareContext(ctx, "DO GET_LOCK(?, 0)")
	if err != nil {
		t.Fatalf("prepare DO: %v", err)
	}
	defer st.Close()
	if _, err := st.ExecContext(ctx, "petrel_do_prepared"); err != nil {
		t.Fatalf("execute DO: %v", err)
	}
	if v := queryInt(t, ctx, other, "SELECT IS_FREE_LOCK('petrel_do_prepared')"); v != 0 {
		t.Errorf("IS_FREE_LOCK after a prepared DO GET_LOCK = %d, want 0", v)
	}
}
