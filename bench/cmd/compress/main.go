// Command compress measures binary log transaction compression
// (binlog_transaction_compression, zstd) on one Petrel primary and writes
// a markdown report to bench/out/compress-<date>.md. bench/compression.sh
// runs it.
//
// One server, one dataset; the setting is switched with SET GLOBAL
// between runs (each sysbench run opens new sessions, which take the new
// global value), in interleaved rounds (OFF, ON, then ON, OFF, ...), so
// host drift weighs on both alike. For each run it records the binary
// log's bytes and commits (Binlog_bytes_written, Binlog_commits) and
// sysbench's TPS:
//
//  1. sysbench oltp_write_only: binlog bytes per transaction with and
//     without compression, and the primary's TPS with and without;
//  2. a text-heavy workload (rows of English-like prose, 1-4 KB, written
//     by Go clients): binlog bytes per transaction with and without.
//
// MODE=cost measures instead what compressing costs the primary (issue
// 17's target: at most 5% of its throughput): sysbench oltp_write_only
// runs a fixed number of transactions (EVENTS) with the setting OFF and
// ON in interleaved rounds, while `perf stat -e task-clock -p PID` counts
// the server's CPU time; it reports TPS and CPU milliseconds per
// transaction, and the median of each round's ON/OFF ratios (cost.go).
//
// It is a benchmark: nothing is judged pass or fail; it fails (exit 1) if
// a compressed run wrote no TRANSACTION_PAYLOAD (Petrel_binlog_compressed_transactions
// did not grow) or an uncompressed one did.
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"petrel/lab"
	"petrel/lab/benchkit"
)

const rootPassword = "bench"

type sample struct {
	bytesPerTxn float64
	tps         float64
	txns        int64
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "compress:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, cancel := benchkit.SignalContext()
	defer cancel()
	rounds := benchkit.EnvInt("ROUNDS", 3)
	threads := benchkit.EnvInt("THREADS", 4)
	tables := benchkit.EnvInt("TABLES", 2)
	size := benchkit.EnvInt("TABLE_SIZE", 10000)
	level := benchkit.EnvInt("LEVEL", 3)
	textTxns := benchkit.EnvInt("TEXT_TXNS", 300)
	dur, err := benchkit.ParseDuration(benchkit.EnvOr("DURATION", "10s"))
	if err != nil {
		return err
	}
	mode := benchkit.EnvOr("MODE", "bytes")
	if mode != "bytes" && mode != "cost" {
		return fmt.Errorf("MODE %q: want bytes or cost", mode)
	}
	tools := []string{"sysbench"}
	if mode == "cost" {
		tools = append(tools, "perf")
	}
	if err := benchkit.CheckTools(tools...); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "petrel-compress-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg := filepath.Join(dir, "petrel.cnf")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("[petrel]\nbinlog_transaction_compression_level_zstd = %d\n", level)), 0o600); err != nil {
		return err
	}
	p, err := lab.StartPetrel(ctx, lab.PetrelOptions{Binary: os.Getenv("PETREL_BINARY"), Datadir: filepath.Join(dir, "data"), RootPassword: rootPassword,
		ExtraArgs: append([]string{"--config", cfg}, benchkit.Fields(os.Getenv("PETREL_ARGS"))...)})
	if err != nil {
		return err
	}
	defer p.Stop(context.Background())
	db, err := p.DB("")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(8)
	if _, err := db.ExecContext(ctx, "CREATE DATABASE sbtest"); err != nil {
		return err
	}
	if _, err := lab.RunSysbench(ctx, lab.SysbenchOptions{Workload: "oltp_write_only", Command: "prepare", Port: p.Port(), Password: rootPassword,
		Tables: tables, TableSize: size, Threads: threads}); err != nil {
		return err
	}
	if mode == "cost" {
		return runCost(ctx, p, db, costOptions{rounds: rounds, threads: threads, tables: tables, size: size, level: level,
			events: benchkit.EnvInt("EVENTS", 20000)})
	}
	if _, err := db.ExecContext(ctx, "CREATE TABLE sbtest.docs (id BIGINT PRIMARY KEY, title VARCHAR(200), body TEXT)"); err != nil {
		return err
	}
	res := map[string]map[bool][]sample{"sysbench": {}, "text": {}}
	nextDoc := int64(1)
	r := rand.New(rand.NewSource(1))
	for round := 0; round < rounds; round++ {
		order := []bool{false, true}
		if round%2 == 1 {
			order = []bool{true, false}
		}
		for _, on := range order {
			s, err := measure(ctx, db, on, func() (float64, error) {
				out, err := lab.RunSysbench(ctx, lab.SysbenchOptions{Workload: "oltp_write_only", Port: p.Port(), Password: rootPassword,
					Tables: tables, TableSize: size, Threads: threads, Duration: dur, ExtraArgs: []string{"--mysql-ignore-errors=1213"}})
				return out.TPS, err
			})
			if err != nil {
				return fmt.Errorf("sysbench round %d compression %v: %w", round+1, on, err)
			}
			res["sysbench"][on] = append(res["sysbench"][on], s)
			s, err = measure(ctx, db, on, func() (float64, error) {
				start := time.Now()
				for i := 0; i < textTxns; i++ {
					doc := prose(r, 1000+r.Intn(3000))
					if _, err := db.ExecContext(ctx, "INSERT INTO sbtest.docs VALUES (?, ?, ?)", nextDoc, prose(r, 60), doc); err != nil {
						return 0, err
					}
					nextDoc++
				}
				return float64(textTxns) / time.Since(start).Seconds(), nil
			})
			if err != nil {
				return fmt.Errorf("text round %d compression %v: %w", round+1, on, err)
			}
			res["text"][on] = append(res["text"][on], s)
		}
	}
	report := render(res, rounds, threads, tables, size, level, dur, textTxns)
	fmt.Print(report)
	out, err := benchkit.OutDir("")
	if err != nil {
		return err
	}
	return benchkit.WriteReport(filepath.Join(out, "compress-"+time.Now().UTC().Format("20060102-150405")+".md"), report)
}

// measure sets the global, runs work, and returns the binary log's bytes
// per transaction over it and work's rate.
func measure(ctx context.Context, db *sql.DB, on bool, work func() (float64, error)) (sample, error) {
	v := "OFF"
	if on {
		v = "ON"
	}
	if _, err := db.ExecContext(ctx, "SET GLOBAL binlog_transaction_compression = "+v); err != nil {
		return sample{}, err
	}
	db.SetMaxIdleConns(0) // sessions opened before the SET would keep the old value
	db.SetMaxIdleConns(2)
	b0, c0, z0, err := counters(ctx, db)
	if err != nil {
		return sample{}, err
	}
	rate, err := work()
	if err != nil {
		return sample{}, err
	}
	b1, c1, z1, err := counters(ctx, db)
	if err != nil {
		return sample{}, err
	}
	if on && z1 == z0 || !on && z1 != z0 {
		return sample{}, fmt.Errorf("compression %v: Petrel_binlog_compressed_transactions went from %d to %d", on, z0, z1)
	}
	if c1 == c0 {
		return sample{}, errors.New("no commits")
	}
	return sample{bytesPerTxn: float64(b1-b0) / float64(c1-c0), tps: rate, txns: c1 - c0}, nil
}

func counters(ctx context.Context, db *sql.DB) (bytes, commits, compressed int64, err error) {
	get := func(name string) (int64, error) {
		var n, v string
		if err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE '"+name+"'").Scan(&n, &v); err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		return strconv.ParseInt(v, 10, 64)
	}
	if bytes, err = get("Binlog_bytes_written"); err != nil {
		return
	}
	if commits, err = get("Binlog_commits"); err != nil {
		return
	}
	compressed, err = get("Petrel_binlog_compressed_transactions")
	return
}

var words = strings.Fields(`the of and to in is that for it as was with be by on not he this are or his from at which but have an
they you were their one all we can her has there been if more when will would who so no about database replication transaction
server primary replica binary log event compression stream network latency bandwidth site relay commit row table index query
storage engine durable crash recovery consistent snapshot isolation lock wait timeout heartbeat source position file format`)

// prose is n bytes of English-like text.
func prose(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.Intn(len(words))])
		if r.Intn(12) == 0 {
			b.WriteByte('.')
		}
	}
	return b.String()[:n]
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func render(res map[string]map[bool][]sample, rounds, threads, tables, size, level int, dur time.Duration, textTxns int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Binary log transaction compression (zstd level %d)\n\n", level)
	fmt.Fprintf(&b, "Petrel %s; %d interleaved rounds; sysbench oltp_write_only %d threads, %d x %d rows, %v per run; text: %d single-row transactions of 1-4 KB prose per run.\n\n",
		benchkit.PetrelBuild(), rounds, threads, tables, size, dur, textTxns)
	fmt.Fprintf(&b, "| workload | binlog bytes/txn OFF | binlog bytes/txn ON | ratio | rate OFF | rate ON | rate ON/OFF |\n|---|---|---|---|---|---|---|\n")
	for _, w := range []string{"sysbench", "text"} {
		var bo, bn, to, tn []float64
		for _, s := range res[w][false] {
			bo, to = append(bo, s.bytesPerTxn), append(to, s.tps)
		}
		for _, s := range res[w][true] {
			bn, tn = append(bn, s.bytesPerTxn), append(tn, s.tps)
		}
		unit := "TPS"
		if w == "text" {
			unit = "txn/s (1 client)"
		}
		var pair []float64 // ON/OFF within each round: host drift cancels
		for i := range res[w][false] {
			if i < len(res[w][true]) && res[w][false][i].tps > 0 {
				pair = append(pair, res[w][true][i].tps/res[w][false][i].tps)
			}
		}
		fmt.Fprintf(&b, "| %s | %.0f | %.0f | %.2fx | %.0f %s | %.0f | %.3f |\n", w, median(bo), median(bn), median(bo)/median(bn), median(to), unit, median(tn), median(pair))
	}
	b.WriteString("\nBytes and rates are medians over rounds; rate ON/OFF is the median of the rounds' own ON/OFF ratios. Per round (rate OFF/ON):\n")
	for _, w := range []string{"sysbench", "text"} {
		fmt.Fprintf(&b, "- %s:", w)
		for i := range res[w][false] {
			if i < len(res[w][true]) {
				fmt.Fprintf(&b, " %.0f/%.0f", res[w][false][i].tps, res[w][true][i].tps)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
