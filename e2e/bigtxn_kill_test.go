package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// TestKilledSpilledTransactionIsAllOrNothing: kill -9 of a real petrel
// while a 30,000-row INSERT ... SELECT whose binlog cache spilled to a
// file (binlog_cache_size 4 KiB) is running or committing leaves, after
// the restart, all of its rows or none, the binary log in agreement
// (mariadb-binlog decodes exactly the rows storage holds) and no cache
// file: killed before its commit, with the statement held at its third
// spill to the cache file (none), with its events half streamed
// into the log (none: recovery cuts the torn transaction), and with its
// events all in the log but not yet applied (all: recovery replays it).
func TestKilledSpilledTransactionIsAllOrNothing(t *testing.T) {
	const rows = 30000
	for _, c := range []struct {
		name, failpoint string
		want            int64
	}{
		{"before-commit", "binlog.cacheSpill=block@3", 0},
		{"mid-write", "binlog.spillChunk=block@2", 0},
		{"written", "binlog.spilledWritten=block", rows},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := testContext(t, 2*time.Minute)
			opts := lab.PetrelOptions{ExtraArgs: []string{"--config", configFile(t, map[string]string{"binlog_cache_size": "4096"})}}
			if c.failpoint != "" {
				opts.Env = []string{"PETREL_FAILPOINTS=" + c.failpoint}
			}
			p := startPetrel(t, ctx, opts)
			db := rootDB(t, p, "")
			mustExec(t, ctx, db, "CREATE DATABASE d",
				"CREATE TABLE d.seed (i INT PRIMARY KEY)",
				"INSERT INTO d.seed WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 999) SELECT i FROM s",
				"CREATE TABLE d.t (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(120) NOT NULL, KEY k_1 (k))")
			binlogDir := filepath.Join(p.Datadir(), "binlog")
			size0 := logBytes(t, binlogDir)
			done := make(chan error, 1)
			go func() {
				_, err := db.ExecContext(ctx, fmt.Sprintf("INSERT INTO d.t SELECT a.i * 1000 + b.i + 1, b.i, REPEAT(CHAR(97 + b.i %% 26), 120) FROM d.seed a, d.seed b WHERE a.i < %d", rows/1000))
				done <- err
			}()
			// Wait for the point to kill at: the cache spilled (the
			// statement runs); the log grew by a first chunk and stopped;
			// the log grew by the whole transaction and stopped.
			var minGrowth int64
			switch c.name {
			case "mid-write":
				minGrowth = 1 << 20
			case "written":
				minGrowth = rows * 120
			}
			deadline := time.Now().Add(60 * time.Second)
			for stable, last := 0, int64(-1); ; {
				if time.Now().After(deadline) {
					t.Fatalf("the kill point was not reached: log grew by %d bytes", logBytes(t, binlogDir)-size0)
				}
				select {
				case err := <-done:
					t.Fatalf("the INSERT ended (%v) before the kill", err)
				default:
				}
				if minGrowth == 0 {
					if globalStatus(t, ctx, db, "Binlog_cache_disk_use") >= 1 {
						break
					}
				} else if g := logBytes(t, binlogDir) - size0; g >= minGrowth {
					if g == last {
						stable++
					} else {
						stable = 0
					}
					last = g
					if stable >= 3 {
						break
					}
				}
				time.Sleep(100 * time.Millisecond)
			}
			if err := p.Kill(); err != nil {
				t.Fatal(err)
			}
			<-done // the client's connection is gone
			// The restart runs without the failpoint.
			p2 := startPetrel(t, ctx, lab.PetrelOptions{Datadir: p.Datadir(),
				ExtraArgs: []string{"--config", configFile(t, map[string]string{"binlog_cache_size": "4096"})}})
			db2 := rootDB(t, p2, "")
			got := queryInt(t, ctx, db2, "SELECT COUNT(*) FROM d.t")
			if got != c.want {
				t.Fatalf("after kill -9 %s: %d rows, want %d", c.name, got, c.want)
			}
			if got == rows {
				if sum := queryInt(t, ctx, db2, "SELECT SUM(id) FROM d.t"); sum != rows*(rows+1)/2 {
					t.Fatalf("after kill -9 %s: ids sum to %d, want %d", c.name, sum, rows*(rows+1)/2)
				}
			}
			var files []string
			ents, err := os.ReadDir(binlogDir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), "binlog.0") {
					files = append(files, filepath.Join(binlogDir, e.Name()))
				}
			}
			out, err := exec.Command("mariadb-binlog", append([]string{"--verbose", "--base64-output=DECODE-ROWS"}, files...)...).CombinedOutput()
			if err != nil {
				t.Fatalf("mariadb-binlog: %v\n%s", err, tail(string(out), 2000))
			}
			if n := int64(strings.Count(string(out), "### INSERT INTO `d`.`t`")); n != got {
				t.Fatalf("after kill -9 %s: the log holds %d rows of d.t, storage %d", c.name, n, got)
			}
			if ents, err := os.ReadDir(filepath.Join(p.Datadir(), "#binlog_cache")); err != nil || len(ents) != 0 {
				t.Fatalf("cache directory after the restart: %d entries (%v)", len(ents), err)
			}
		})
	}
}

// logBytes is the size of the binlog files in dir.
func logBytes(t *testing.T, dir string) int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "binlog.0") {
			if st, err := e.Info(); err == nil {
				n += st.Size()
			}
		}
	}
	return n
}
