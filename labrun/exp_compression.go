package labrun

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Compression (issue 34): real text loaded into a table without options,
// one declared ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8 and one declared
// uncompressed (Petrel: COMPRESSION='none', stored without any codec;
// MariaDB: ROW_FORMAT=DYNAMIC, InnoDB's default and uncompressed), on both
// systems: each table's load time and footprint (information_schema's
// DATA_LENGTH + INDEX_LENGTH once settled: Petrel after OPTIMIZE TABLE,
// which writes its memtable out and compacts the table; MariaDB after
// ANALYZE TABLE, which refreshes InnoDB's page counts; the order of the
// loads rotates with the round), the compressed table against the
// uncompressed one (issue 34's target, like with like), and each against
// the text's size. Petrel's plain table is already compressed (Snappy
// per 4 KiB block), InnoDB's is not, so it is the uncompressed one there.
// The replica applies every table (the end-state check compares their
// rows) and must hold each with its options.

func init() {
	register(&Experiment{
		Name: "compression",
		Description: "Source text Debian ships (C headers under /usr/include, then Perl modules) is loaded, in rows of " +
			"whole lines of up to 2 KB, into a table without options, one declared ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8 and " +
			"one declared uncompressed (Petrel COMPRESSION='none', InnoDB ROW_FORMAT=DYNAMIC): " +
			"each table's load time and its footprint (DATA_LENGTH + INDEX_LENGTH once settled).",
		Needs: []string{"mariadb"},
		Charts: []Chart{
			{ID: "footprint", Title: "Footprint of the loaded text", Kind: Bars, YLabel: "MiB", Categories: []string{"plain", "compressed", "uncompressed"}},
			{ID: "load", Title: "Load time", Kind: Bars, YLabel: "s", Categories: []string{"plain", "compressed", "uncompressed"}},
		},
		Trial: compressionTrial,
	})
}

// compressionText is where the experiment's text comes from, in order.
var compressionText = []string{"/usr/include", "/usr/share/perl", "/usr/share/perl5"}

// textRow is one row of the experiment's table.
type textRow struct {
	path string
	body []byte
}

// readTextRows reads up to size bytes of text files under roots (in
// lexical order) as rows of whole lines of at most about 2 KB.
func readTextRows(roots []string, size int) ([]textRow, int, error) {
	var rows []textRow
	total := 0
	errDone := fmt.Errorf("enough text")
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !d.Type().IsRegular() {
				return nil
			}
			switch filepath.Ext(path) {
			case ".h", ".pm", ".pl", ".pod":
			default:
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil || bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
				return nil // unreadable, or not UTF-8 text (the columns' charset)
			}
			for len(b) > 0 && total < size {
				n := min(2000, len(b))
				if i := bytes.LastIndexByte(b[:n], '\n'); i >= 0 && n < len(b) {
					n = i + 1
				}
				rows = append(rows, textRow{path: path, body: b[:n]})
				total += n
				b = b[n:]
			}
			if total >= size {
				return errDone
			}
			return nil
		})
		if err == errDone {
			return rows, total, nil
		}
	}
	return nil, total, fmt.Errorf("only %d bytes of text under %s, want %d (Debian packages libc6-dev, perl-modules)",
		total, strings.Join(roots, ", "), size)
}

// compressionTables are the experiment's tables: name, options
// (Petrel's, then MariaDB's when they differ).
var compressionTables = [][3]string{
	{"text_plain", "", ""},
	{"text_compressed", " ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8", ""},
	{"text_uncompressed", " COMPRESSION='none'", " ROW_FORMAT=DYNAMIC"},
}

// compressionOptions is table i's options on system.
func compressionOptions(i int, system string) string {
	tb := compressionTables[i]
	if system != "petrel" && tb[2] != "" {
		return tb[2]
	}
	return tb[1]
}

func compressionTrial(ctx context.Context, t *Trial) error {
	m := t.Env.Mode
	size := pick(m, 1<<20, 16<<20, 64<<20)
	rows, total, err := readTextRows(compressionText, size)
	if err != nil {
		return err
	}
	c, err := t.Start(ctx, ClusterSpec{})
	if err != nil {
		return err
	}
	const clients = 4
	n := len(compressionTables)
	foot, load, ratio := make([]Point, n), make([]Point, n), make([]float64, n)
	// The order rotates with the round: the first load of a run warms the
	// servers up (and leaves compactions behind it).
	for k := range n {
		i := (k + t.Round) % n
		tb := compressionTables[i]
		name := LabDB + "." + tb[0]
		// MariaDB's default character set is latin1; the text is UTF-8.
		create := "CREATE TABLE " + name + " (id BIGINT NOT NULL PRIMARY KEY, path VARCHAR(255) NOT NULL, body MEDIUMTEXT NOT NULL) DEFAULT CHARSET=utf8mb4" + compressionOptions(i, t.System)
		if err := qExec(ctx, c.PDB, create); err != nil {
			return err
		}
		t.Command("create "+tb[0], create)
		done := t.Phase("load "+tb[0], 0)
		start := time.Now()
		err := loadTextRows(ctx, c.PDB, name, rows, clients)
		secs := time.Since(start).Seconds()
		done()
		if err != nil {
			return fmt.Errorf("load %s: %w", name, err)
		}
		settle := "ANALYZE TABLE " + name
		if t.System == "petrel" {
			settle = "OPTIMIZE TABLE " + name
		}
		if err := qExec(ctx, c.PDB, settle); err != nil {
			return err
		}
		t.Command("settle "+tb[0], settle)
		q := "SELECT DATA_LENGTH + INDEX_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA='" + LabDB + "' AND TABLE_NAME='" + tb[0] + "'"
		s, err := qString(ctx, c.PDB, q)
		if err != nil {
			return err
		}
		bytesOnDisk, err := strconv.ParseFloat(s, 64)
		if err != nil || bytesOnDisk <= 0 {
			return fmt.Errorf("%s: footprint %q", name, s)
		}
		mib := bytesOnDisk / (1 << 20)
		ratio[i] = mib
		foot[i] = Point{X: float64(i), Y: mib}
		load[i] = Point{X: float64(i), Y: secs}
		label := strings.TrimPrefix(tb[0], "text_")
		t.Metric(label+": footprint", "MiB", mib, true)
		t.Metric(label+": load", "s", secs, true)
	}
	t.Command("load", fmt.Sprintf("%d clients, multi-row INSERTs of about 64 KB, %d rows (%.1f MiB of text) into each table", clients, len(rows), float64(total)/(1<<20)))
	t.Series("footprint", foot)
	t.Series("load", load)
	t.Metric("text loaded", "MiB", float64(total)/(1<<20), false)
	t.Metric("compressed/plain footprint", "x", ratio[1]/ratio[0], true)
	// Issue 34's target (0.4x): the compressed table against the
	// uncompressed one, like with like on both systems.
	t.Metric("compressed/uncompressed footprint", "x", ratio[1]/ratio[2], true)
	text := float64(total) / (1 << 20)
	t.Metric("plain footprint/text", "x", ratio[0]/text, true)
	t.Metric("compressed footprint/text", "x", ratio[1]/text, true)
	t.Metric("uncompressed footprint/text", "x", ratio[2]/text, true)
	if err := c.WaitCaughtUp(ctx, endStateTimeout(m)); err != nil {
		return err
	}
	for i := 1; i < n; i++ {
		tb := compressionTables[i]
		show, err := qShowCreate(ctx, c.RDBs[0], LabDB+"."+tb[0])
		want := strings.Fields(strings.ReplaceAll(compressionOptions(i, t.System), "'", ""))
		ok := err == nil
		for _, w := range want {
			ok = ok && strings.Contains(strings.ReplaceAll(show, "'", ""), w)
		}
		detail := fmt.Sprintf("the replica's SHOW CREATE TABLE %s keeps %s", tb[0], strings.Join(want, " "))
		if !ok {
			detail = fmt.Sprintf("replica's SHOW CREATE TABLE %s: %q (%v), want %s", tb[0], show, err, strings.Join(want, " "))
		}
		what := "replica's table compressed"
		if i == 2 {
			what = "replica's table uncompressed"
		}
		t.checks = append(t.checks, Check{System: t.System, Round: t.Round, What: what, OK: ok, Detail: detail})
	}
	return nil
}

// qShowCreate is SHOW CREATE TABLE's statement.
func qShowCreate(ctx context.Context, db *sql.DB, table string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	var name, stmt string
	err := db.QueryRowContext(ctx, "SHOW CREATE TABLE "+table).Scan(&name, &stmt)
	return stmt, err
}

// loadTextRows inserts rows (ids 1..n) into table from clients
// connections, each taking the next batch of about 64 KB.
func loadTextRows(ctx context.Context, db *sql.DB, table string, rows []textRow, clients int) error {
	type batch struct{ lo, hi int }
	var batches []batch
	for lo := 0; lo < len(rows); {
		hi, n := lo, 0
		for hi < len(rows) && (n < 64<<10 || hi == lo) {
			n += len(rows[hi].body)
			hi++
		}
		batches = append(batches, batch{lo, hi})
		lo = hi
	}
	var (
		mu    sync.Mutex
		next  int
		first error
		wg    sync.WaitGroup
	)
	take := func() (batch, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next == len(batches) || first != nil {
			return batch{}, false
		}
		next++
		return batches[next-1], true
	}
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				b, ok := take()
				if !ok {
					return
				}
				var q strings.Builder
				q.WriteString("INSERT INTO " + table + " VALUES ")
				args := make([]any, 0, 3*(b.hi-b.lo))
				for i := b.lo; i < b.hi; i++ {
					if i > b.lo {
						q.WriteByte(',')
					}
					q.WriteString("(?,?,?)")
					args = append(args, i+1, rows[i].path, rows[i].body)
				}
				qctx, cancel := context.WithTimeout(ctx, queryTimeout)
				_, err := db.ExecContext(qctx, q.String(), args...)
				cancel()
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}
