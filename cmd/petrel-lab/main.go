// Command petrel-lab runs the lab's experiments: Petrel beside a MariaDB
// anchor, each started by the experiment itself (servers, links, WAN
// emulation), in interleaved rounds, with an end-state check, and writes
// one report per run (HTML with inline SVG charts, Markdown, CSV, JSON).
//
//	petrel-lab list
//	petrel-lab run EXPERIMENT... | all  [--tiny|--quick] [--out DIR] [--rounds N]
//	                                   [--systems petrel,mariadb] [--no-root] [-v]
//
// It is a separate binary, not a subcommand compiled into petrel, so the
// server carries none of the lab (TUN forwarder, namespace and process
// management, report drawing); `petrel lab ...` execs it.
//
// Exit status: 0 when every experiment ran and every end-state check
// passed; 1 on a failure or an interrupt (the report is still written,
// marked INCOMPLETE); 2 on bad usage.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"

	"petrel/labrun"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
}

// Main runs the command and returns its exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "list":
		list(stdout)
		return 0
	case "run":
		return run(args[1:], stdout, stderr)
	case "sysbench":
		return sysbench(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		usage(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "petrel-lab: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage:
  petrel-lab list
  petrel-lab run EXPERIMENT...|all [--tiny|--quick] [--out DIR] [--rounds N]
                 [--systems petrel,mariadb] [--no-root] [--petrel-binary PATH] [-v]
  petrel-lab sysbench [--servers petrel,mariadb,petrel-nobinlog,NAME=PATH...]
                 [--workloads W,...] [--threads N,...] [--runs W:N,N ...] [--rounds N]
                 [--duration D] [--settle D] [--together] [--out DIR] [-v] ...
                 (petrel-lab sysbench --help lists every flag)
`)
}

func list(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EXPERIMENT\tNEEDS\tDESCRIPTION")
	for _, e := range labrun.Experiments() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Name, strings.Join(e.Needs, ","), e.Description)
	}
	tw.Flush()
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	tiny := fs.Bool("tiny", false, "seconds per experiment (the test suite's size)")
	quick := fs.Bool("quick", false, "every experiment in under 10 minutes in total")
	out := fs.String("out", "lab-out", "directory receiving the run's report directory")
	rounds := fs.Int("rounds", 0, "rounds per system (default: 1 tiny, 1 quick, 3 full)")
	systems := fs.String("systems", "petrel,mariadb", "systems to run, comma-separated")
	noRoot := fs.Bool("no-root", false, "use the userspace link even when namespaces are available")
	bin := fs.String("petrel-binary", "", "petrel executable (default: build ./cmd/petrel)")
	verbose := fs.Bool("v", false, "log the servers' and lab's messages on stderr")
	clients := fs.String("clients", "", "clients-scaling's points, comma-separated client counts (default: the mode's curve)")
	names, status := parseFlags(fs, args, stdout, stderr)
	if status >= 0 {
		return status
	}
	if len(names) == 0 {
		fmt.Fprintln(stderr, "petrel-lab run: name an experiment, or all (petrel-lab list shows them)")
		return 2
	}
	if *tiny && *quick {
		fmt.Fprintln(stderr, "petrel-lab run: --tiny and --quick are exclusive")
		return 2
	}
	if len(names) == 1 && names[0] == "all" {
		names = nil
	}
	if _, err := labrun.Lookup(names); err != nil {
		fmt.Fprintln(stderr, "petrel-lab run:", err)
		return 2
	}
	var sys []string
	for _, s := range strings.Split(*systems, ",") {
		s = strings.TrimSpace(s)
		if s != "petrel" && s != "mariadb" {
			fmt.Fprintf(stderr, "petrel-lab run: unknown system %q (want petrel, mariadb)\n", s)
			return 2
		}
		sys = append(sys, s)
	}
	var points []int
	for _, f := range strings.FieldsFunc(*clients, func(r rune) bool { return r == ',' }) {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			fmt.Fprintf(stderr, "petrel-lab run: --clients: %q is not a positive client count\n", f)
			return 2
		}
		points = append(points, n)
	}
	mode := labrun.Full
	if *tiny {
		mode = labrun.Tiny
	} else if *quick {
		mode = labrun.Quick
	}
	ctx, stop := runContext()
	defer stop()
	runRes, dir, err := labrun.RunExperiments(ctx, labrun.Options{
		Experiments: names, Mode: mode, Rounds: *rounds, Systems: sys, OutDir: *out,
		Command: "petrel-lab run " + shellJoin(args), PetrelBinary: *bin, Logger: newLogger(stderr, *verbose),
		Progress: labrun.NewProgress(stdout), NoRoot: *noRoot, Clients: points,
	})
	return finish(ctx, runRes, dir, err, stdout, stderr)
}

// parseFlags parses args with fs, flags allowed between and after the
// positional arguments, which it returns. status is -1 to go on, else
// the exit status: 0 after --help (the usage on stdout), 2 on a bad flag
// (on stderr).
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (pos []string, status int) {
	var msg bytes.Buffer
	fs.SetOutput(&msg)
	fs.Usage = func() {
		usage(&msg)
		fmt.Fprintf(&msg, "\nflags of %s:\n", fs.Name())
		fs.PrintDefaults()
	}
	rest := args
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				stdout.Write(msg.Bytes())
				return nil, 0
			}
			stderr.Write(msg.Bytes())
			return nil, 2
		}
		rest = fs.Args()
		if len(rest) > 0 {
			pos = append(pos, rest[0])
			rest = rest[1:]
		}
	}
	return pos, -1
}

// newLogger logs the servers' and lab's messages on stderr with -v,
// errors only without.
func newLogger(stderr io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelError
	if verbose {
		level = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
}

// runContext returns a context ^C and SIGTERM cancel. (The open-files
// limit the servers and sysbench inherit is raised by labrun's runner.)
func runContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// finish prints the run's notes and report path and returns the exit
// status.
func finish(ctx context.Context, runRes labrun.Run, dir string, err error, stdout, stderr io.Writer) int {
	for _, n := range runRes.Notes {
		fmt.Fprintln(stdout, "note:", n)
	}
	if dir != "" {
		status := "complete"
		if !runRes.Complete {
			status = "INCOMPLETE"
		}
		fmt.Fprintf(stdout, "report (%s): %s/%s\n", status, dir, labrun.ReportHTML)
	}
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "petrel-lab: interrupted; everything started was stopped")
		} else {
			fmt.Fprintln(stderr, "petrel-lab:", err)
		}
		return 1
	}
	return 0
}

// shellJoin joins args for the report's command line, quoting those a
// shell would split.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = a
		if a == "" || strings.ContainsAny(a, " \t\"'$") {
			q[i] = strconv.Quote(a)
		}
	}
	return strings.Join(q, " ")
}
