package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"petrel/clone"
	"petrel/internal/mysqlerr"
	"petrel/internal/tcptune"
)

const cloneUsage = "usage: petrel clone --from HOST:PORT --user U --password P --datadir DIR [--max-bandwidth MIB] [flags]"

// runClone is `petrel clone --from HOST:PORT --user U --password P
// --datadir DIR`: the clone of a running donor into a new datadir, which
// `petrel server --datadir DIR` then starts (with its own server UUID).
// DIR must be missing or empty (an interrupted earlier run's staging
// directory is removed and the clone starts again).
func runClone(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("clone", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "the donor's HOST:PORT")
	user := fs.String("user", "root", "the donor account (needs BACKUP_ADMIN)")
	password := fs.String("password", "", "the donor account's password")
	datadir := fs.String("datadir", "", "the new datadir (missing or empty)")
	bw := fs.Int64("max-bandwidth", 0, "MiB per second, 0 = unlimited (clone_max_data_bandwidth)")
	compress := fs.Bool("compress", false, "zstd-compressed transfer (clone_enable_compression)")
	sslMode := fs.String("ssl-mode", "preferred", "TLS to the donor: preferred, required or disabled")
	stream := fs.Bool("stream", true, "pull over the donor's data stream when it offers one (false: CLONE READ result sets)")
	setUsage(fs, cloneUsage)
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	host, portStr, err := net.SplitHostPort(*from)
	port, perr := strconv.Atoi(portStr)
	if err != nil || perr != nil || *datadir == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, cloneUsage)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	created, err := cloneTarget(*datadir)
	if err != nil {
		fmt.Fprintf(stderr, "petrel clone: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	progress := clone.NewProgress()
	res, err := clone.Fetch(ctx, clone.FetchOptions{Host: host, Port: port, User: *user, Password: *password, Datadir: *datadir,
		MaxBandwidth: func() int64 { return *bw << 20 }, Compress: *compress, SSLMode: *sslMode, NoStream: !*stream, TCP: cloneTCP, Progress: progress, Logger: logger})
	if err == nil {
		_, err = clone.Install(*datadir, logger)
	}
	if err != nil {
		if created {
			os.RemoveAll(*datadir) // nothing changed: the directory was not there
		}
		fmt.Fprintf(stderr, "petrel clone: %v\n", err)
		return 1
	}
	network := progress.Snapshot().Stages[0].Network // FILE COPY
	fmt.Fprintf(stdout, "petrel clone: %d bytes (%d on the network) from %s in %.1fs (%.0f MB/s); gtid_executed %s; start it with petrel server --datadir %s\n",
		res.Bytes, network, *from, res.Elapsed.Seconds(), float64(res.Bytes)/1e6/max(res.Elapsed.Seconds(), 1e-9), res.Manifest.GTIDs, *datadir)
	return 0
}

// cloneTCP: keepalives and TCP_NODELAY as on a replica's link; the
// kernel's congestion control.
func cloneTCP() tcptune.Options {
	return tcptune.Options{KeepAliveIdle: 10 * time.Second, KeepAliveInterval: 5 * time.Second, KeepAliveCount: 3, NoDelay: true}
}

// cloneTarget checks the target datadir: missing (created; reported so a
// failed clone removes it), empty, or holding only an interrupted clone's
// staging directory. Anything else is refused with MySQL's message for an
// existing DATA DIRECTORY (ER_DB_CREATE_EXISTS).
func cloneTarget(dir string) (created bool, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return true, os.MkdirAll(dir, 0o750)
	}
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		if e.Name() != clone.StagingDir {
			return false, fmt.Errorf("ERROR %d (%s): Can't create database '%s'; database exists (the datadir is not empty: clone into a new directory)",
				mysqlerr.ErDBCreateExists, mysqlerr.State(mysqlerr.ErDBCreateExists), filepath.Clean(dir))
		}
	}
	return false, nil
}
