package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"petrel/binlog"
	"petrel/binlog/remote"
)

const binlogUsage = `usage: petrel binlog [-v] FILE...
       petrel binlog -R [--host H] [--port P] [--user U] [--password PW] [--start-position N]
                     [--to-last-log | --stop-never] [--connection-server-id N] [-v]
                     [--raw] [--result-file F] FILE

Prints binary log events in mysqlbinlog's style, verifying every checksum.
With --read-from-remote-server (-R), reads them from a running server over
the replication protocol (COM_BINLOG_DUMP), from FILE (a name SHOW BINARY
LOGS lists): to the end of FILE, to the end of the last file with
--to-last-log, or following the log until interrupted with --stop-never.
With --raw, the events are written to binlog files named as on the server,
prefixed with --result-file; without it, --result-file names the output file.`

// binlogFlags are `petrel binlog`'s options, under mysqlbinlog's names.
type binlogFlags struct {
	verbose, remote, stopNever, toLastLog, raw bool
	host, user, password, resultFile           string
	port                                       int
	start                                      uint64
	serverID, stopNeverID                      uint
}

// attachedShort lists the short options whose value may be attached
// (-uroot, -pSECRET, -P3306), as mysql's clients accept.
var attachedShort = map[byte]bool{'h': true, 'P': true, 'u': true, 'p': true, 'j': true, 'r': true}

// splitAttached rewrites "-uroot" as "-u=root".
func splitAttached(args []string) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		if len(a) > 2 && a[0] == '-' && a[1] != '-' && attachedShort[a[1]] && a[2] != '=' {
			a = a[:2] + "=" + a[2:]
		}
		out = append(out, a)
	}
	return out
}

func runBinlog(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("binlog", flag.ContinueOnError)
	fs.SetOutput(stderr)
	setUsage(fs, binlogUsage)
	var f binlogFlags
	for _, n := range []string{"v", "verbose"} {
		fs.BoolVar(&f.verbose, n, false, "decode row events to pseudo-SQL")
	}
	for _, n := range []string{"R", "read-from-remote-server"} {
		fs.BoolVar(&f.remote, n, false, "read the binary log from a server")
	}
	for _, n := range []string{"h", "host"} {
		fs.StringVar(&f.host, n, "127.0.0.1", "server host (-R)")
	}
	for _, n := range []string{"P", "port"} {
		fs.IntVar(&f.port, n, 3306, "server port (-R)")
	}
	for _, n := range []string{"u", "user"} {
		fs.StringVar(&f.user, n, "root", "user, with REPLICATION SLAVE (-R)")
	}
	for _, n := range []string{"p", "password"} {
		fs.StringVar(&f.password, n, "", "password (-R)")
	}
	for _, n := range []string{"j", "start-position"} {
		fs.Uint64Var(&f.start, n, 4, "offset in FILE to start at (-R)")
	}
	for _, n := range []string{"t", "to-last-log"} {
		fs.BoolVar(&f.toLastLog, n, false, "go on through the later files to the end of the log (-R)")
	}
	fs.BoolVar(&f.stopNever, "stop-never", false, "keep following the log until interrupted (-R; implies --to-last-log)")
	fs.UintVar(&f.serverID, "connection-server-id", 0, "server_id to announce (-R; default 65535)")
	fs.UintVar(&f.stopNeverID, "stop-never-slave-server-id", 0, "server_id to announce with --stop-never (an older name of --connection-server-id)")
	fs.BoolVar(&f.raw, "raw", false, "write the events to binlog files instead of printing them (-R)")
	for _, n := range []string{"r", "result-file"} {
		fs.StringVar(&f.resultFile, n, "", "output file; with --raw, the prefix of the files written")
	}
	// Options and file names may come in any order, as with mysqlbinlog.
	var files []string
	rest := splitAttached(args)
	for {
		if code, done := parseFlags(fs, rest, stdout, stderr); done {
			return code
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if !f.remote {
		for _, n := range []string{"stop-never", "to-last-log", "t", "raw", "start-position", "j", "host", "h", "port", "P", "connection-server-id", "stop-never-slave-server-id"} {
			if set[n] {
				fmt.Fprintf(stderr, "petrel binlog: -%s needs --read-from-remote-server (-R)\n", n)
				return 2
			}
		}
		if len(files) == 0 {
			fmt.Fprintln(stderr, binlogUsage)
			return 2
		}
		return printFiles(files, f, stdout, stderr)
	}
	if len(files) != 1 {
		fmt.Fprintln(stderr, "petrel binlog: with --read-from-remote-server, name the one file to start from (SHOW BINARY LOGS lists them)")
		return 2
	}
	return followRemote(files[0], f, stdout, stderr)
}

// printFiles prints local files.
func printFiles(files []string, f binlogFlags, stdout, stderr io.Writer) int {
	out, closeOut, err := resultWriter(f.resultFile, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "petrel binlog: %v\n", err)
		return 1
	}
	status := 0
	for _, path := range files {
		sum, err := binlog.Print(out, path, binlog.PrintOptions{Verbose: f.verbose})
		fmt.Fprintf(out, "# %s: %d events, %d transactions, %d bytes\n", path, sum.Events, sum.Transactions, sum.Bytes)
		if err != nil {
			fmt.Fprintf(stderr, "petrel binlog: %v\n", err)
			status = 1
		}
	}
	if err := closeOut(); err != nil {
		fmt.Fprintf(stderr, "petrel binlog: %v\n", err)
		status = 1
	}
	return status
}

// resultWriter is the text output: stdout, or the --result-file.
func resultWriter(path string, stdout io.Writer) (*bufio.Writer, func() error, error) {
	if path == "" {
		w := bufio.NewWriter(stdout)
		return w, w.Flush, nil
	}
	file, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	w := bufio.NewWriter(file)
	return w, func() error { return errors.Join(w.Flush(), file.Close()) }, nil
}

// followRemote reads a server's log (--read-from-remote-server). SIGINT
// and SIGTERM end it cleanly (status 0, output flushed); a failed link
// ends it with an error naming where it stopped (status 1).
func followRemote(file string, f binlogFlags, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	id := uint32(f.serverID)
	if id == 0 && f.stopNever {
		id = uint32(f.stopNeverID)
	}
	opts := remote.Options{Host: f.host, Port: f.port, User: f.user, Password: f.password, ServerID: id}
	s, err := remote.Dial(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "petrel binlog: %v\n", err)
		return 1
	}
	defer s.Close()

	var (
		text     *bufio.Writer
		closeOut = func() error { return nil }
		raw      *rawFiles
		p        *binlog.Printer
	)
	if f.raw {
		raw = &rawFiles{prefix: f.resultFile}
		closeOut = raw.close
	} else {
		if text, closeOut, err = resultWriter(f.resultFile, stdout); err != nil {
			fmt.Fprintf(stderr, "petrel binlog: %v\n", err)
			return 1
		}
		p = binlog.NewPrinter(text, opts.Addr(), binlog.PrintOptions{Verbose: f.verbose})
		fmt.Fprintf(text, "# petrel binlog --read-from-remote-server %s (server %s) from %s:%d\n", opts.Addr(), s.Server, file, f.start)
	}
	fo := remote.FollowOptions{File: file, Start: f.start, ToLastLog: f.toLastLog, StopNever: f.stopNever}
	pos, err := remote.Follow(ctx, s, fo, func(ev remote.Event) error {
		if raw != nil {
			if err := raw.event(ev); err != nil {
				return err
			}
			if !s.Buffered() {
				return raw.flush()
			}
			return nil
		}
		switch {
		case ev.Type() == binlog.HeartbeatEvent:
		case ev.Artificial:
			fmt.Fprintf(text, "# rotate to %s (from the server)\n", ev.File)
		default:
			if err := p.Event(ev.Data, ev.At); err != nil {
				return err
			}
		}
		if !s.Buffered() {
			return text.Flush()
		}
		return nil
	})
	status := 0
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "petrel binlog: stopped by signal at %s\n", pos)
	default:
		fmt.Fprintf(stderr, "petrel binlog: %v (stopped at %s)\n", err, pos)
		status = 1
	}
	if p != nil {
		fmt.Fprintf(text, "# %s: %d events, %d transactions, up to %s\n", opts.Addr(), p.Sum.Events, p.Sum.Transactions, pos)
	}
	if err := closeOut(); err != nil {
		fmt.Fprintf(stderr, "petrel binlog: %v\n", err)
		status = 1
	}
	return status
}

// rawFiles writes a stream's events to files named as on the server
// (--raw), each starting with the binlog magic number.
type rawFiles struct {
	prefix string
	name   string
	f      *os.File
	w      *bufio.Writer
}

func (r *rawFiles) event(ev remote.Event) error {
	if ev.Type() == binlog.HeartbeatEvent {
		return nil
	}
	if ev.File != r.name {
		if err := r.close(); err != nil {
			return err
		}
		if strings.ContainsAny(ev.File, "/\\") || ev.File == "" || ev.File == "." || ev.File == ".." {
			return fmt.Errorf("the server names a file %q, which --raw will not write", ev.File)
		}
		f, err := os.Create(r.prefix + ev.File)
		if err != nil {
			return err
		}
		r.name, r.f, r.w = ev.File, f, bufio.NewWriter(f)
		if _, err := r.w.Write(binlog.Magic); err != nil {
			return err
		}
	}
	if ev.Artificial {
		return nil
	}
	_, err := r.w.Write(ev.Data)
	return err
}

func (r *rawFiles) flush() error {
	if r.w == nil {
		return nil
	}
	return r.w.Flush()
}

func (r *rawFiles) close() error {
	if r.f == nil {
		return nil
	}
	err := errors.Join(r.w.Flush(), r.f.Close())
	r.f, r.w = nil, nil
	return err
}
