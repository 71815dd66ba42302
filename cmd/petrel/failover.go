package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"petrel/cluster"
)

// runFailover is `petrel failover --cluster DIR` (switch false) and
// `petrel switchover --cluster DIR [--to nodeN]` (switch true).
func runFailover(args []string, stdout, stderr io.Writer, switchover bool) int {
	name := "failover"
	if switchover {
		name = "switchover"
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var co cluster.CommandOptions
	fs.StringVar(&co.Dir, "cluster", "", "the directory of a `petrel cluster` (its --datadir)")
	fs.StringVar(&co.RootPassword, "root-password", "petrel", "root password of the nodes")
	if switchover {
		fs.StringVar(&co.To, "to", "", "the replica to promote (default: the one beside the primary holding the most GTIDs)")
	} else {
		fs.DurationVar(&co.Wait, "wait", 10*time.Second, "how long to watch for the primary to be confirmed dead")
	}
	fs.DurationVar(&co.Detector.ApplyTimeout, "apply-timeout", 30*time.Second, "how long the promoted replica may take to apply its relay log (catch up, in a switchover)")
	fs.DurationVar(&co.Detector.MaxLag, "max-lag", 30*time.Second, "a replica lagging more than this is not promoted")
	setUsage(fs, fmt.Sprintf("usage: petrel %s --cluster DIR [flags]", name))
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if co.Dir == "" || fs.NArg() > 0 {
		fmt.Fprintf(stderr, "usage: petrel %s --cluster DIR [flags] (petrel %s --help)\n", name, name)
		return 2
	}
	if f, ok := stdout.(*os.File); ok {
		co.Out = f
	}
	co.Logger = slog.New(slog.NewTextHandler(stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	run := cluster.Failover
	if switchover {
		run = cluster.Switchover
	}
	if err := run(ctx, co); err != nil {
		fmt.Fprintf(stderr, "petrel %s: %v\n", name, err)
		return 1
	}
	return 0
}
