package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"petrel/lab"
)

const (
	hotWorkers = 16
	hotUpdates = 100
	// maxRetries bounds the retries of one transaction after deadlocks.
	maxRetries = 200
)

// TestConcurrentIncrements has 16 connections increment one row 100 times
// each, first as autocommit statements, then in explicit transactions
// retried on deadlock. No increment may be lost or applied twice.
func TestConcurrentIncrements(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	mustExec(t, ctx, rootDB(t, p, ""), "CREATE DATABASE c")
	db := rootDB(t, p, "c")
	db.SetMaxOpenConns(hotWorkers + 2)
	db.SetMaxIdleConns(hotWorkers + 2)
	mustExec(t, ctx, db,
		"CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL)",
		"INSERT INTO t VALUES (1, 0), (2, 0), (3, 0)")

	t.Run("autocommit", func(t *testing.T) {
		errs := hammer(ctx, db, func(ctx context.Context, c *sql.Conn) error {
			_, err := c.ExecContext(ctx, "UPDATE t SET k = k + 1 WHERE id = 1")
			return err
		})
		for _, err := range errs {
			t.Errorf("autocommit UPDATE: %v", err)
		}
		if k := queryInt(t, ctx, db, "SELECT k FROM t WHERE id = 1"); k != hotWorkers*hotUpdates {
			t.Errorf("k = %d after %d autocommit increments, want %d", k, hotWorkers*hotUpdates, hotWorkers*hotUpdates)
		}
	})

	t.Run("explicit", func(t *testing.T) {
		var mu sync.Mutex
		deadlocks := 0
		errs := hammer(ctx, db, func(ctx context.Context, c *sql.Conn) error {
			n, err := retryDeadlocks(ctx, c, func() error {
				_, err := c.ExecContext(ctx, "UPDATE t SET k = k + 1 WHERE id = 2")
				return err
			})
			mu.Lock()
			deadlocks += n
			mu.Unlock()
			return err
		})
		for _, err := range errs {
			t.Errorf("transaction: %v", err)
		}
		t.Logf("%d deadlock retries", deadlocks)
		if k := queryInt(t, ctx, db, "SELECT k FROM t WHERE id = 2"); k != hotWorkers*hotUpdates {
			t.Errorf("k = %d after %d committed increments, want %d", k, hotWorkers*hotUpdates, hotWorkers*hotUpdates)
		}
	})

	// Untouched rows stay untouched.
	if k := queryInt(t, ctx, db, "SELECT k FROM t WHERE id = 3"); k != 0 {
		t.Errorf("row 3: k = %d, want 0", k)
	}
}

// hammer runs op hotUpdates times on each of hotWorkers connections at
// once and returns the errors (at most one per worker: a worker stops at
// its first error).
func hammer(ctx context.Context, db *sql.DB, op func(context.Context, *sql.Conn) error) []error {
	var wg sync.WaitGroup
	errc := make(chan error, hotWorkers)
	start := make(chan struct{})
	for w := 0; w < hotWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := db.Conn(ctx)
			if err != nil {
				errc <- err
				return
			}
			defer c.Close()
			<-start
			for i := 0; i < hotUpdates; i++ {
				if err := op(ctx, c); err != nil {
					errc <- fmt.Errorf("worker %d, op %d: %w", w, i, err)
					return
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errc)
	var errs []error
	for err := range errc {
		errs = append(errs, err)
	}
	return errs
}

// retryDeadlocks runs body between BEGIN and COMMIT on c, starting over
// when the server picks the transaction as a deadlock victim (1213). It
// returns the number of retries. Any other error rolls back and returns.
func retryDeadlocks(ctx context.Context, c *sql.Conn, body func() error) (int, error) {
	for retry := 0; retry <= maxRetries; retry++ {
		if _, err := c.ExecContext(ctx, "BEGIN"); err != nil {
			return retry, fmt.Errorf("BEGIN: %w", err)
		}
		err := body()
		if err == nil {
			_, err = c.ExecContext(ctx, "COMMIT")
			if err == nil {
				return retry, nil
			}
			err = fmt.Errorf("COMMIT: %w", err)
		}
		// The server has already rolled a deadlock victim back; ROLLBACK
		// is then a no-op, and for other errors it ends the transaction.
		if _, rbErr := c.ExecContext(ctx, "ROLLBACK"); rbErr != nil {
			return retry, fmt.Errorf("ROLLBACK after %v: %w", err, rbErr)
		}
		if errNo(err) != erLockDeadlock {
			return retry, err
		}
	}
	return maxRetries, fmt.Errorf("still deadlocking after %d retries", maxRetries)
}

// TestConcurrentTransfers moves money between 10 accounts from 8
// goroutines in explicit transactions, retrying deadlocks. Each subtest
// uses one way of reading balances: SELECT ... FOR UPDATE of both rows
// then plain UPDATEs, guarded UPDATE ... SET bal = bal - ?, or both at
// once. The total is conserved, no balance goes negative, and every
// account ends at exactly its opening balance plus the committed
// transfers' deltas.
func TestConcurrentTransfers(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	mustExec(t, ctx, rootDB(t, p, ""), "CREATE DATABASE bank")
	db := rootDB(t, p, "bank")
	db.SetMaxIdleConns(16)
	for _, mode := range []string{"for update", "guarded update", "mixed"} {
		t.Run(mode, func(t *testing.T) { runTransfers(t, ctx, db, mode) })
	}
}

// runTransfers resets the accounts and runs one TestConcurrentTransfers
// mode: "for update", "guarded update" or "mixed" (half the workers each).
func runTransfers(t *testing.T, ctx context.Context, db *sql.DB, mode string) {
	const (
		accounts = 10
		opening  = 1000
		workers  = 8
		// transfers per worker.
		transfers = 40
	)
	mustExec(t, ctx, db,
		"DROP TABLE IF EXISTS acct",
		"CREATE TABLE acct (id INT PRIMARY KEY, bal BIGINT NOT NULL)")
	for i := 0; i < accounts; i++ {
		mustExec(t, ctx, db, fmt.Sprintf("INSERT INTO acct VALUES (%d, %d)", i, opening))
	}

	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)

	var mu sync.Mutex
	delta := make([]int64, accounts)
	committed, skipped, retries := 0, 0, 0
	var wg sync.WaitGroup
	errc := make(chan error, workers)
	for w := 0; w < workers; w++ {
		forUpdate := mode == "for update" || (mode == "mixed" && w%2 == 0)
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(seed), uint64(w)))
			c, err := db.Conn(ctx)
			if err != nil {
				errc <- err
				return
			}
			defer c.Close()
			for i := 0; i < transfers; i++ {
				from := rng.IntN(accounts)
				to := (from + 1 + rng.IntN(accounts-1)) % accounts
				amount := int64(1 + rng.IntN(300))
				moved := false
				var body func() error
				if forUpdate {
					body = func() error {
						moved = false
						var a, b int64
						if err := c.QueryRowContext(ctx, "SELECT bal FROM acct WHERE id = ? FOR UPDATE", from).Scan(&a); err != nil {
							return err
						}
						if err := c.QueryRowContext(ctx, "SELECT bal FROM acct WHERE id = ? FOR UPDATE", to).Scan(&b); err != nil {
							return err
						}
						if a < amount {
							return nil
						}
						if _, err := c.ExecContext(ctx, "UPDATE acct SET bal = ? WHERE id = ?", a-amount, from); err != nil {
							return err
						}
						if _, err := c.ExecContext(ctx, "UPDATE acct SET bal = ? WHERE id = ?", b+amount, to); err != nil {
							return err
						}
						moved = true
						return nil
					}
				} else {
					body = func() error {
						moved = false
						res, err := c.ExecContext(ctx, "UPDATE acct SET bal = bal - ? WHERE id = ? AND bal >= ?", amount, from, amount)
						if err != nil {
							return err
						}
						n, err := res.RowsAffected()
						if err != nil {
							return err
						}
						if n == 0 {
							return nil
						}
						if _, err := c.ExecContext(ctx, "UPDATE acct SET bal = bal + ? WHERE id = ?", amount, to); err != nil {
							return err
						}
						moved = true
						return nil
					}
				}
				n, err := retryDeadlocks(ctx, c, body)
				mu.Lock()
				retries += n
				if err == nil && moved {
					committed++
					delta[from] -= amount
					delta[to] += amount
				} else if err == nil {
					skipped++
				}
				mu.Unlock()
				if err != nil {
					errc <- fmt.Errorf("worker %d, transfer %d (%d -> %d, %d): %w", w, i, from, to, amount, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	t.Logf("%d transfers committed, %d skipped for lack of funds, %d deadlock retries", committed, skipped, retries)
	if committed == 0 {
		t.Fatal("no transfer committed")
	}

	if total := queryInt(t, ctx, db, "SELECT CAST(SUM(bal) AS SIGNED) FROM acct"); total != accounts*opening {
		t.Errorf("total balance %d, want %d (money created or destroyed)", total, accounts*opening)
	}
	if n := queryInt(t, ctx, db, "SELECT COUNT(*) FROM acct WHERE bal < 0"); n != 0 {
		t.Errorf("%d accounts have a negative balance", n)
	}
	rows, err := db.QueryContext(ctx, "SELECT id, bal FROM acct ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var id int
		var bal int64
		if err := rows.Scan(&id, &bal); err != nil {
			t.Fatal(err)
		}
		seen++
		if want := opening + delta[id]; bal != want {
			t.Errorf("account %d: balance %d, want %d (opening %d + committed transfers %+d)", id, bal, want, opening, delta[id])
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if seen != accounts {
		t.Errorf("%d accounts, want %d", seen, accounts)
	}
}
