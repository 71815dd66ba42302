package labrun

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"petrel/lab"
)

// Binlog compression (issue 17; formerly bench/cmd/compress): the binary
// log's bytes per transaction with the primary's compression off and on,
// switched by SET GLOBAL between runs (each run's sessions are new, so
// they take the new value), in the order OFF, ON (ON, OFF on even
// rounds), under two loads: sysbench oltp_write_only, and single-row
// INSERTs of real text (the compression experiment's rows of up to 2 KB
// of C headers). Petrel: binlog_transaction_compression (MySQL 8.0.20's
// TRANSACTION_PAYLOAD, zstd level 3); MariaDB: log_bin_compress (each
// row event over 256 bytes compressed with zlib). The replica applies
// everything (the end-state check compares its rows), and a Petrel
// primary must have written a payload in every ON run and none in an OFF
// one.

func init() {
	register(&Experiment{
		Name: "binlog-compression",
		Description: "The primary's binary log bytes per transaction with its compression OFF and ON (Petrel binlog_transaction_compression, zstd; " +
			"MariaDB log_bin_compress, zlib per row event), switched between runs, under sysbench oltp_write_only and single-row INSERTs " +
			"of real text: bytes per transaction, OFF/ON ratio, and the loads' rate ON/OFF.",
		Needs: []string{"mariadb"},
		Charts: []Chart{
			{ID: "bytes", Title: "Binary log bytes per transaction", Kind: Bars, YLabel: "bytes",
				Categories: []string{"sysbench OFF", "sysbench ON", "text OFF", "text ON"}},
		},
		Trial: binlogCompressionTrial,
	})
}

// binlogCompression is how each system spells the switch and its proof.
var binlogCompression = map[string]struct {
	variable string
	// payloads counts the transactions written compressed ("": the
	// system has no such counter).
	payloads string
}{
	"petrel":  {"binlog_transaction_compression", "Petrel_binlog_compressed_transactions"},
	"mariadb": {"log_bin_compress", ""},
}

// compressRun is one load's run with the setting off or on.
type compressRun struct {
	bytesPerTxn, rate float64
}

func binlogCompressionTrial(ctx context.Context, t *Trial) error {
	m := t.Env.Mode
	textRows := pick(m, 50, 150, 300)
	rows, _, err := readTextRows(compressionText, textRows*2000)
	if err != nil {
		return err
	}
	spec := ClusterSpec{}
	if t.System == "petrel" {
		spec.PrimaryVars = map[string]string{"binlog_transaction_compression_level_zstd": "3"}
	}
	c, err := t.Start(ctx, spec)
	if err != nil {
		return err
	}
	create := "CREATE TABLE " + LabDB + ".docs (id BIGINT NOT NULL PRIMARY KEY, path VARCHAR(255) NOT NULL, body MEDIUMTEXT NOT NULL) DEFAULT CHARSET=utf8mb4"
	if err := qExec(ctx, c.PDB, create); err != nil {
		return err
	}
	sb := c.Sysbench("oltp_write_only", 2, pick(m, 1000, 10000, 10000))
	sb.Threads, sb.Duration = 4, pick(m, time.Second, 3*time.Second, 10*time.Second)
	done := t.Phase("sysbench prepare", 0)
	err = c.SysbenchPrepare(ctx, sb, endStateTimeout(m))
	done()
	if err != nil {
		return err
	}
	t.Command("load sysbench", fmt.Sprintf("sysbench oltp_write_only --mysql-db=%s --tables=%d --table-size=%d --threads=%d --time=%d --mysql-ignore-errors=1213 run",
		LabDB, sb.Tables, sb.TableSize, sb.Threads, int(sb.Duration.Seconds())))
	t.Command("load text", fmt.Sprintf("%d autocommit INSERTs a run into %s.docs, one row of up to 2 KB of C headers each; %s", textRows, LabDB, create))
	v := binlogCompression[t.System]
	next := 0
	loads := []struct {
		name string
		run  func() (float64, error)
	}{
		{"sysbench", func() (float64, error) {
			r, err := lab.RunSysbench(ctx, sb)
			return r.TPS, err
		}},
		{"text", func() (float64, error) {
			db, err := c.Primary.DB(LabDB)
			if err != nil {
				return 0, err
			}
			defer db.Close()
			start := time.Now()
			for range textRows {
				r := rows[next%len(rows)]
				if _, err := db.ExecContext(ctx, "INSERT INTO docs VALUES (?, ?, ?)", next+1, r.path, r.body); err != nil {
					return 0, err
				}
				next++
			}
			return float64(textRows) / time.Since(start).Seconds(), nil
		}},
	}
	order := []bool{false, true}
	if t.Round%2 == 0 {
		order = []bool{true, false}
	}
	var bars []Point
	for li, load := range loads {
		var got [2]compressRun
		for _, on := range order {
			setting := map[bool]string{false: "OFF", true: "ON"}[on]
			done := t.Phase(fmt.Sprintf("%s, %s %s", load.name, v.variable, setting), 0)
			r, err := compressMeasure(ctx, c.PDB, v.variable, v.payloads, on, load.run)
			done()
			if err != nil {
				return fmt.Errorf("%s with %s %s: %w", load.name, v.variable, setting, err)
			}
			i := 0
			if on {
				i = 1
			}
			got[i] = r
			t.Metric(fmt.Sprintf("binlog bytes per transaction, %s, %s", load.name, setting), "bytes", r.bytesPerTxn, true)
			bars = append(bars, Point{X: float64(2*li + i), Y: r.bytesPerTxn})
		}
		t.Metric("binlog bytes OFF / ON, "+load.name, "x", got[0].bytesPerTxn/got[1].bytesPerTxn, false)
		t.Metric("rate ON / OFF, "+load.name, "ratio", got[1].rate/got[0].rate, false)
	}
	t.Series("bytes", bars)
	return nil
}

// compressMeasure sets the primary's compression, runs the load and
// returns the binary log's bytes per commit over it and the load's rate.
// With payloads named, the count of compressed transactions must grow
// exactly when the setting is on.
func compressMeasure(ctx context.Context, db *sql.DB, variable, payloads string, on bool, load func() (float64, error)) (compressRun, error) {
	setting := map[bool]string{false: "OFF", true: "ON"}[on]
	if err := qExec(ctx, db, "SET GLOBAL "+variable+" = "+setting); err != nil {
		return compressRun{}, err
	}
	counters := func() (b, c, z int64, err error) {
		if b, err = statusInt(ctx, db, "Binlog_bytes_written"); err != nil {
			return
		}
		if c, err = statusInt(ctx, db, "Binlog_commits"); err != nil || payloads == "" {
			return
		}
		z, err = statusInt(ctx, db, payloads)
		return
	}
	b0, c0, z0, err := counters()
	if err != nil {
		return compressRun{}, err
	}
	rate, err := load()
	if err != nil {
		return compressRun{}, err
	}
	b1, c1, z1, err := counters()
	if err != nil {
		return compressRun{}, err
	}
	if payloads != "" && (on && z1 == z0 || !on && z1 != z0) {
		return compressRun{}, fmt.Errorf("%s went from %d to %d", payloads, z0, z1)
	}
	if c1 == c0 {
		return compressRun{}, fmt.Errorf("no commits")
	}
	return compressRun{bytesPerTxn: float64(b1-b0) / float64(c1-c0), rate: rate}, nil
}
