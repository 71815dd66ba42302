package lab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// SysbenchOptions configures one sysbench 1.0 invocation against a MySQL
// server on 127.0.0.1.
type SysbenchOptions struct {
	// Workload is the Lua test, e.g. "oltp_point_select". Required.
	Workload string
	// Command is "prepare", "run" or "cleanup". Default: "run".
	Command string
	// Port is the server's port on 127.0.0.1. Required.
	Port int
	// User is --mysql-user. Default: "root".
	User string
	// Password is --mysql-password. Default: "".
	Password string
	// DB is --mysql-db; it must exist. Default: "sbtest".
	DB string
	// Tables is --tables. Default: 4.
	Tables int
	// TableSize is --table-size. Default: 10000.
	TableSize int
	// Threads is --threads. Default: 1.
	Threads int
	// Duration is --time for run, rounded up to whole seconds. Default: 20s.
	Duration time.Duration
	// ExtraArgs are appended before the command (e.g. "--db-ps-mode=disable").
	ExtraArgs []string
	// Timeout bounds the invocation. Default: Duration+2m for run, 30m for
	// prepare and cleanup.
	Timeout time.Duration
	// Binary is the sysbench executable. Default: "sysbench" on PATH.
	Binary string
	// WAN, if set, runs sysbench inside side Side's namespace of WAN,
	// where 127.0.0.1 is that namespace's loopback (see
	// PetrelOptions.WAN).
	WAN  *WAN
	Side int
}

func (o *SysbenchOptions) applyDefaults() error {
	if o.Workload == "" {
		return errors.New("lab: SysbenchOptions.Workload is required")
	}
	if o.Port == 0 {
		return errors.New("lab: SysbenchOptions.Port is required")
	}
	if o.Command == "" {
		o.Command = "run"
	}
	if o.User == "" {
		o.User = "root"
	}
	if o.DB == "" {
		o.DB = "sbtest"
	}
	if o.Tables <= 0 {
		o.Tables = 4
	}
	if o.TableSize <= 0 {
		o.TableSize = 10000
	}
	if o.Threads <= 0 {
		o.Threads = 1
	}
	if o.Duration <= 0 {
		o.Duration = 20 * time.Second
	}
	if o.Timeout <= 0 {
		if o.Command == "run" {
			o.Timeout = o.Duration + 2*time.Minute
		} else {
			o.Timeout = 30 * time.Minute
		}
	}
	if o.Binary == "" {
		o.Binary = "sysbench"
	}
	return nil
}

// SysbenchResult holds the figures sysbench prints after a run.
type SysbenchResult struct {
	Transactions  int64
	TPS           float64
	Queries       int64
	QPS           float64
	IgnoredErrors int64
	Reconnects    int64
	LatencyAvgMs  float64
	LatencyP95Ms  float64
	// Output is sysbench's full stdout and stderr.
	Output string
}

// RunSysbench runs sysbench and, for Command "run", parses its summary.
// For prepare and cleanup the result carries only Output.
func RunSysbench(ctx context.Context, opts SysbenchOptions) (SysbenchResult, error) {
	if err := opts.applyDefaults(); err != nil {
		return SysbenchResult{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	secs := int((opts.Duration + time.Second - 1) / time.Second)
	args := []string{
		opts.Workload,
		"--db-driver=mysql",
		"--mysql-host=127.0.0.1",
		"--mysql-port=" + strconv.Itoa(opts.Port),
		"--mysql-user=" + opts.User,
		"--mysql-password=" + opts.Password,
		"--mysql-db=" + opts.DB,
		"--tables=" + strconv.Itoa(opts.Tables),
		"--table-size=" + strconv.Itoa(opts.TableSize),
		"--threads=" + strconv.Itoa(opts.Threads),
		"--time=" + strconv.Itoa(secs),
	}
	args = append(args, opts.ExtraArgs...)
	args = append(args, opts.Command)
	cmd := exec.CommandContext(ctx, opts.Binary, args...)
	if opts.WAN != nil {
		cmd = opts.WAN.Command(ctx, opts.Side, opts.Binary, args...)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	cmd.WaitDelay = waitDelay
	runErr := cmd.Run()
	res := SysbenchResult{Output: out.String()}
	if runErr != nil {
		return res, fmt.Errorf("lab: sysbench %s %s (threads %d, port %d): %w\n%s",
			opts.Workload, opts.Command, opts.Threads, opts.Port, runErr, tail(res.Output, 4<<10))
	}
	if opts.Command != "run" {
		return res, nil
	}
	parsed, err := ParseSysbench(res.Output)
	if err != nil {
		return res, err
	}
	parsed.Output = res.Output
	return parsed, nil
}

var (
	sbTransactions = regexp.MustCompile(`(?m)^\s*transactions:\s+(\d+)\s*\(([\d.]+) per sec\.\)`)
	sbQueries      = regexp.MustCompile(`(?m)^\s*queries:\s+(\d+)\s*\(([\d.]+) per sec\.\)`)
	sbIgnored      = regexp.MustCompile(`(?m)^\s*ignored errors:\s+(\d+)`)
	sbReconnects   = regexp.MustCompile(`(?m)^\s*reconnects:\s+(\d+)`)
	sbLatencyAvg   = regexp.MustCompile(`(?m)^\s*avg:\s+([\d.]+)`)
	sbLatencyP95   = regexp.MustCompile(`(?m)^\s*95th percentile:\s+([\d.]+)`)
)

// ParseSysbench extracts the summary of a sysbench 1.0 "run" output, the
// last one when --report-checkpoints printed others before it (each
// checkpoint resets the counters, so the last covers the time since the
// last checkpoint). Transactions and queries are required; the other
// fields are zero if missing.
func ParseSysbench(out string) (SysbenchResult, error) {
	var r SysbenchResult
	if i := strings.LastIndex(out, "SQL statistics:"); i >= 0 {
		out = out[i:]
	}
	m := sbTransactions.FindStringSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("lab: sysbench output has no transactions line:\n%s", tail(out, 2<<10))
	}
	r.Transactions, _ = strconv.ParseInt(m[1], 10, 64)
	r.TPS, _ = strconv.ParseFloat(m[2], 64)
	m = sbQueries.FindStringSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("lab: sysbench output has no queries line:\n%s", tail(out, 2<<10))
	}
	r.Queries, _ = strconv.ParseInt(m[1], 10, 64)
	r.QPS, _ = strconv.ParseFloat(m[2], 64)
	if m := sbIgnored.FindStringSubmatch(out); m != nil {
		r.IgnoredErrors, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if m := sbReconnects.FindStringSubmatch(out); m != nil {
		r.Reconnects, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if m := sbLatencyAvg.FindStringSubmatch(out); m != nil {
		r.LatencyAvgMs, _ = strconv.ParseFloat(m[1], 64)
	}
	if m := sbLatencyP95.FindStringSubmatch(out); m != nil {
		r.LatencyP95Ms, _ = strconv.ParseFloat(m[1], 64)
	}
	return r, nil
}
