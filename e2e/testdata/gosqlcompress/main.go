// Command gosqlcompress runs a fixed workload through go-sql-driver/mysql
// v1.9 on the DSN in its first argument (compress=true or not) and prints,
// as JSON, the session's compression status and digests of what it sent
// and what it read back, for e2e/gosqlcompress_test.go to compare: many
// rows (prepared and multi-row text inserts), large rows (1, 5 and 17 MiB:
// the last crosses a 16 MiB protocol packet), multi-statement queries and
// a multi-statement update.
package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql"
)

// Report is the program's output.
type Report struct {
	Compression string   `json:"compression"`
	Algorithm   string   `json:"algorithm"`
	Rows        int64    `json:"rows"`
	SumN        int64    `json:"sum_n"`
	SentDigest  string   `json:"sent_digest"`
	ReadDigest  string   `json:"read_digest"`
	LargeSent   []string `json:"large_sent"`
	LargeRead   []string `json:"large_read"`
	// ScanDigests: the rows read back by three plain scans.
	ScanDigests []string `json:"scan_digests"`
	LargeServer []string `json:"large_server"` // SHA2(s, 256) computed by the server
	Multi       []string `json:"multi"`        // every multi-statement result set, flattened
}

const largeBase = 1_000_000

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gosqlcompress DSN TABLE")
		os.Exit(2)
	}
	rep, err := run(os.Args[1], os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gosqlcompress:", err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(rep)
}

var words = strings.Fields("replica source binary log relay compression stream site primary transaction row event network wan bandwidth latency commit durable")

// text is n bytes of compressible word salad from r.
func text(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[r.Intn(len(words))])
		b.WriteByte(' ')
	}
	return b.String()[:n]
}

func sum(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }

func run(dsn, table string) (*Report, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	c, err := db.Conn(ctx) // one session: its status is the one asked about
	if err != nil {
		return nil, err
	}
	defer c.Close()
	rep := &Report{}
	var name string
	if err := c.QueryRowContext(ctx, "SHOW SESSION STATUS LIKE 'Compression'").Scan(&name, &rep.Compression); err != nil {
		return nil, err
	}
	if err := c.QueryRowContext(ctx, "SHOW SESSION STATUS LIKE 'Compression_algorithm'").Scan(&name, &rep.Algorithm); err != nil {
		return nil, err
	}
	if _, err := c.ExecContext(ctx, "CREATE TABLE "+table+" (id INT PRIMARY KEY, s LONGTEXT, n BIGINT)"); err != nil {
		return nil, err
	}
	r := rand.New(rand.NewSource(17))
	all := sha256.New()
	// Many rows: 2000 through a prepared statement in one transaction...
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	st, err := tx.PrepareContext(ctx, "INSERT INTO "+table+" VALUES (?, ?, ?)")
	if err != nil {
		return nil, err
	}
	for i := 0; i < 2000; i++ {
		s := text(r, 50+r.Intn(400))
		if _, err := st.ExecContext(ctx, i, s, int64(i)*7); err != nil {
			return nil, fmt.Errorf("prepared insert %d: %w", i, err)
		}
		fmt.Fprintf(all, "%d|%s|%d\n", i, s, int64(i)*7)
	}
	st.Close()
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	// ...and 1000 in one multi-row text statement.
	var vals []string
	for i := 2000; i < 3000; i++ {
		s := text(r, 50+r.Intn(400))
		vals = append(vals, fmt.Sprintf("(%d, '%s', %d)", i, s, int64(i)*7))
		fmt.Fprintf(all, "%d|%s|%d\n", i, s, int64(i)*7)
	}
	if _, err := c.ExecContext(ctx, "INSERT INTO "+table+" VALUES "+strings.Join(vals, ",")); err != nil {
		return nil, err
	}
	// Large rows; the last is one 17 MiB packet split in two.
	for i, n := range []int{1 << 20, 5 << 20, 17 << 20} {
		s := text(r, n)
		if _, err := c.ExecContext(ctx, "INSERT INTO "+table+" VALUES (?, ?, ?)", largeBase+i, s, 1); err != nil {
			return nil, fmt.Errorf("large row %d (%d bytes): %w", i, n, err)
		}
		fmt.Fprintf(all, "%d|%s|%d\n", largeBase+i, s, 1)
		rep.LargeSent = append(rep.LargeSent, sum(s))
	}
	// A multi-statement update, then multi-statement reads.
	if _, err := c.ExecContext(ctx, "UPDATE "+table+" SET n = n + 1 WHERE id < 10; UPDATE "+table+" SET n = n * 2 WHERE id < 5"); err != nil {
		return nil, fmt.Errorf("multi-statement update: %w", err)
	}
	rows, err := c.QueryContext(ctx, "SELECT COUNT(*), CAST(SUM(n) AS SIGNED) FROM "+table+"; SELECT id, LENGTH(s), SHA2(s, 256) FROM "+table+" WHERE id >= 1000000 ORDER BY id; SELECT LENGTH(REPEAT('xyz', 200000)), SHA2(REPEAT('xyz', 200000), 256)")
	if err != nil {
		return nil, fmt.Errorf("multi-statement query: %w", err)
	}
	for set := 0; ; set++ {
		cols, _ := rows.Columns()
		for rows.Next() {
			cells := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range cells {
				ptrs[i] = &cells[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				return nil, err
			}
			var parts []string
			for _, x := range cells {
				parts = append(parts, x.String)
			}
			rep.Multi = append(rep.Multi, fmt.Sprintf("%d:%s", set, strings.Join(parts, " ")))
			if set == 1 {
				rep.LargeServer = append(rep.LargeServer, cells[2].String)
			}
		}
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	// Everything back, with the updates applied to the digest's rows.
	if err := c.QueryRowContext(ctx, "SELECT COUNT(*), CAST(SUM(n) AS SIGNED) FROM "+table).Scan(&rep.Rows, &rep.SumN); err != nil {
		return nil, err
	}
	// Read back ordered (GMS answers), then three times as a plain scan
	// (Petrel's scan fast path answers from the second: storage order is
	// the primary key's).
	readBack := func(q string) (string, []string, error) {
		rows, err := c.QueryContext(ctx, q)
		if err != nil {
			return "", nil, err
		}
		defer rows.Close()
		read := sha256.New()
		var large []string
		for rows.Next() {
			var id int
			var s string
			var n int64
			if err := rows.Scan(&id, &s, &n); err != nil {
				return "", nil, err
			}
			// Undo the updates so the read digest compares with the sent one.
			if id < 5 {
				n /= 2
			}
			if id < 10 {
				n--
			}
			fmt.Fprintf(read, "%d|%s|%d\n", id, s, n)
			if id >= largeBase {
				large = append(large, sum(s))
			}
		}
		return hex.EncodeToString(read.Sum(nil)), large, rows.Err()
	}
	digest, large, err := readBack("SELECT id, s, n FROM " + table + " ORDER BY id")
	if err != nil {
		return nil, err
	}
	rep.LargeRead = large
	for i := 0; i < 3; i++ {
		d, _, err := readBack("SELECT id, s, n FROM " + table)
		if err != nil {
			return nil, fmt.Errorf("scan %d: %w", i, err)
		}
		rep.ScanDigests = append(rep.ScanDigests, d)
	}
	rep.SentDigest, rep.ReadDigest = hex.EncodeToString(all.Sum(nil)), digest
	return rep, nil
}
