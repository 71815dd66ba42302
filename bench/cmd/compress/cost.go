package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"petrel/lab"
	"petrel/lab/benchkit"
)

type costOptions struct {
	rounds, threads, tables, size, level, events int
}

// costSample is one sysbench run's figures.
type costSample struct {
	tps       float64
	txns      int64
	cpuMs     float64 // the server's task-clock over the run
	cpuPerTxn float64 // ms
}

// runCost runs the MODE=cost benchmark on p (sbtest prepared).
func runCost(ctx context.Context, p *lab.Petrel, db *sql.DB, o costOptions) error {
	res := map[bool][]costSample{}
	for round := 0; round < o.rounds; round++ {
		order := []bool{false, true}
		if round%2 == 1 {
			order = []bool{true, false}
		}
		for _, on := range order {
			var cs costSample
			_, err := measure(ctx, db, on, func() (float64, error) {
				var err error
				cs, err = costRun(ctx, p, o)
				return cs.tps, err
			})
			if err != nil {
				return fmt.Errorf("round %d compression %v: %w", round+1, on, err)
			}
			fmt.Fprintf(os.Stderr, "round %d compression %v: %.0f TPS, %.3f CPU ms/txn\n", round+1, on, cs.tps, cs.cpuPerTxn)
			res[on] = append(res[on], cs)
		}
	}
	report := renderCost(res, o)
	fmt.Print(report)
	out, err := benchkit.OutDir("")
	if err != nil {
		return err
	}
	return benchkit.WriteReport(filepath.Join(out, "compress-cost-"+time.Now().UTC().Format("20060102-150405")+".md"), report)
}

// costRun runs o.events sysbench transactions under perf stat.
func costRun(ctx context.Context, p *lab.Petrel, o costOptions) (costSample, error) {
	var perfOut bytes.Buffer
	perf := exec.CommandContext(ctx, "perf", "stat", "-x,", "-e", "task-clock", "-p", strconv.Itoa(p.Pid()))
	perf.Stderr = &perfOut
	if err := perf.Start(); err != nil {
		return costSample{}, err
	}
	time.Sleep(300 * time.Millisecond) // perf attached before the first transaction
	out, err := lab.RunSysbench(ctx, lab.SysbenchOptions{Workload: "oltp_write_only", Port: p.Port(), Password: rootPassword,
		Tables: o.tables, TableSize: o.size, Threads: o.threads, Duration: time.Hour,
		ExtraArgs: []string{"--events=" + strconv.Itoa(o.events), "--mysql-ignore-errors=1213"}})
	perf.Process.Signal(syscall.SIGINT)
	perfErr := perf.Wait()
	if err != nil {
		return costSample{}, err
	}
	ms, perr := parseTaskClock(perfOut.String())
	if perr != nil {
		return costSample{}, fmt.Errorf("perf stat: %v (%v)", perr, perfErr)
	}
	if out.Transactions == 0 {
		return costSample{}, fmt.Errorf("sysbench ran no transactions:\n%s", benchkit.LastLines(out.Output, 10))
	}
	return costSample{tps: out.TPS, txns: out.Transactions, cpuMs: ms, cpuPerTxn: ms / float64(out.Transactions)}, nil
}

// parseTaskClock reads task-clock's milliseconds from perf stat -x,
// output ("1234.56,msec,task-clock,...").
func parseTaskClock(s string) (float64, error) {
	for _, l := range strings.Split(s, "\n") {
		f := strings.Split(strings.TrimSpace(l), ",")
		if len(f) >= 3 && f[2] == "task-clock" {
			return strconv.ParseFloat(f[0], 64)
		}
	}
	return 0, fmt.Errorf("no task-clock line in %q", s)
}

func renderCost(res map[bool][]costSample, o costOptions) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Transaction compression's cost on the primary (zstd level %d)\n\n", o.level)
	fmt.Fprintf(&b, "Petrel %s; %d interleaved rounds; sysbench oltp_write_only %d threads, %d x %d rows, %d transactions per run; server CPU from perf stat -e task-clock -p PID over each run.\n\n",
		benchkit.PetrelBuild(), o.rounds, o.threads, o.tables, o.size, o.events)
	b.WriteString("| round | TPS OFF | TPS ON | TPS ON/OFF | CPU ms/txn OFF | CPU ms/txn ON | CPU ON/OFF |\n|---|---|---|---|---|---|---|\n")
	var tpsR, cpuR, tOff, tOn, cOff, cOn []float64
	for i := range res[false] {
		if i >= len(res[true]) {
			break
		}
		f, n := res[false][i], res[true][i]
		tpsR, cpuR = append(tpsR, n.tps/f.tps), append(cpuR, n.cpuPerTxn/f.cpuPerTxn)
		tOff, tOn, cOff, cOn = append(tOff, f.tps), append(tOn, n.tps), append(cOff, f.cpuPerTxn), append(cOn, n.cpuPerTxn)
		fmt.Fprintf(&b, "| %d | %.0f | %.0f | %.3f | %.3f | %.3f | %.3f |\n", i+1, f.tps, n.tps, n.tps/f.tps, f.cpuPerTxn, n.cpuPerTxn, n.cpuPerTxn/f.cpuPerTxn)
	}
	fmt.Fprintf(&b, "| median | %.0f | %.0f | %.3f | %.3f | %.3f | %.3f |\n", median(tOff), median(tOn), median(tpsR), median(cOff), median(cOn), median(cpuR))
	b.WriteString("\nRatios are each round's own ON/OFF (host drift cancels), then their median.\n")
	return b.String()
}
