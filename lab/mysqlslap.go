package lab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"time"
)

// MysqlslapOptions configures one run of mysqlslap's auto-generated load
// (the seed's baseline: `mysqlslap --auto-generate-sql
// --concurrency=10 --number-of-queries=1000`) against 127.0.0.1.
type MysqlslapOptions struct {
	// Port is the server's port on 127.0.0.1. Required.
	Port int
	// User is --user. Default: "root".
	User string
	// Password is --password (empty: no password).
	Password string
	// Concurrency is --concurrency. Default: 10.
	Concurrency int
	// Queries is --number-of-queries. Default: 100 per client.
	Queries int
	// Iterations is --iterations. Default: 1.
	Iterations int
	// ExtraArgs are appended (e.g. "--auto-generate-sql-load-type=read").
	ExtraArgs []string
	// Timeout bounds the invocation. Default: 10m.
	Timeout time.Duration
	// Binary is the executable. Default: "mariadb-slap" (mysqlslap) on PATH.
	Binary string
}

// MysqlslapResult holds mysqlslap's summary: seconds to run all queries,
// the mean, min and max over the iterations.
type MysqlslapResult struct {
	AvgSeconds, MinSeconds, MaxSeconds float64
	Clients                            int
	Queries                            int
	// QPS is Queries / AvgSeconds.
	QPS float64
	// Output is mysqlslap's full stdout and stderr.
	Output string
}

// RunMysqlslap runs mysqlslap and parses its summary. mysqlslap creates
// and drops its own schema (mysqlslap) in every iteration.
func RunMysqlslap(ctx context.Context, o MysqlslapOptions) (MysqlslapResult, error) {
	if o.Port == 0 {
		return MysqlslapResult{}, errors.New("lab: MysqlslapOptions.Port is required")
	}
	if o.User == "" {
		o.User = "root"
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 10
	}
	if o.Queries <= 0 {
		o.Queries = 100 * o.Concurrency
	}
	if o.Iterations <= 0 {
		o.Iterations = 1
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.Binary == "" {
		o.Binary = "mariadb-slap"
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	// --password=PW, never -pPW: "-p" alone would prompt.
	args := []string{
		"--no-defaults",
		"--protocol=TCP",
		"--host=127.0.0.1",
		"--port=" + strconv.Itoa(o.Port),
		"--user=" + o.User,
		"--password=" + o.Password,
		// Plaintext against every server: the client turns TLS on by
		// itself when the server offers it (Petrel does, the lab's
		// MariaDB does not), which would compare TLS with plaintext.
		"--skip-ssl",
		"--auto-generate-sql",
		"--concurrency=" + strconv.Itoa(o.Concurrency),
		"--number-of-queries=" + strconv.Itoa(o.Queries),
		"--iterations=" + strconv.Itoa(o.Iterations),
	}
	args = append(args, o.ExtraArgs...)
	cmd := exec.CommandContext(ctx, o.Binary, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	cmd.WaitDelay = waitDelay
	if err := cmd.Run(); err != nil {
		return MysqlslapResult{Output: out.String()}, fmt.Errorf("lab: mysqlslap (concurrency %d, port %d): %w\n%s",
			o.Concurrency, o.Port, err, tail(out.String(), 4<<10))
	}
	r, err := ParseMysqlslap(out.String())
	r.Output = out.String()
	return r, err
}

var (
	slapAvg     = regexp.MustCompile(`(?m)Average number of seconds to run all queries:\s+([\d.]+) seconds`)
	slapMin     = regexp.MustCompile(`(?m)Minimum number of seconds to run all queries:\s+([\d.]+) seconds`)
	slapMax     = regexp.MustCompile(`(?m)Maximum number of seconds to run all queries:\s+([\d.]+) seconds`)
	slapClients = regexp.MustCompile(`(?m)Number of clients running queries:\s+(\d+)`)
	slapQueries = regexp.MustCompile(`(?m)Average number of queries per client:\s+(\d+)`)
)

// ParseMysqlslap extracts mysqlslap's summary; the average time, the
// client count and the queries per client are required.
func ParseMysqlslap(out string) (MysqlslapResult, error) {
	var r MysqlslapResult
	m := slapAvg.FindStringSubmatch(out)
	c := slapClients.FindStringSubmatch(out)
	q := slapQueries.FindStringSubmatch(out)
	if m == nil || c == nil || q == nil {
		return r, fmt.Errorf("lab: mysqlslap output has no summary:\n%s", tail(out, 2<<10))
	}
	r.AvgSeconds, _ = strconv.ParseFloat(m[1], 64)
	r.Clients, _ = strconv.Atoi(c[1])
	perClient, _ := strconv.Atoi(q[1])
	r.Queries = r.Clients * perClient
	if m := slapMin.FindStringSubmatch(out); m != nil {
		r.MinSeconds, _ = strconv.ParseFloat(m[1], 64)
	}
	if m := slapMax.FindStringSubmatch(out); m != nil {
		r.MaxSeconds, _ = strconv.ParseFloat(m[1], 64)
	}
	if r.AvgSeconds > 0 {
		r.QPS = float64(r.Queries) / r.AvgSeconds
	}
	return r, nil
}
