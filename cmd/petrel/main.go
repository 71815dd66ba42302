// Command petrel is the Petrel server and its tools.
//
//	petrel server --datadir DIR --port N --server-id N [--root-password PW] [--config FILE]
//	petrel relay  (the flags of petrel server)
//	petrel cluster [--datadir DIR] [--base-port P] [--replicas N] [--root-password PW] [--async] [--auto-failover]
//	petrel failover --cluster DIR; petrel switchover --cluster DIR [--to nodeN]
//	petrel proxy --primary HOST:PORT [--replicas HOST:PORT,...] [--port 6033] [--admin-port 6032] [--config FILE]
//	petrel lab list | run EXPERIMENT [--tiny|--quick] [--out DIR]   (execs petrel-lab)
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	_ "net/http/pprof"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	"petrel/cluster"
	"petrel/internal/config"
	"petrel/internal/failpoint"
	"petrel/node"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func usage(w io.Writer) {
	fmt.Fprintln(w, `usage: petrel <command> [flags]

commands:
  server    run a Petrel server (petrel server --help)
  relay     run a relay: the flags of server; it keeps its source's binlog (CHANGE REPLICATION SOURCE TO ...;
            START REPLICA) in its own and serves it to replicas, applying nothing
  cluster   run a local primary and replicas, replication wired (petrel cluster --help)
  failover  promote the best replica of a cluster whose primary is dead (petrel failover --cluster DIR)
  switchover move a live cluster's primary role to a replica, losing nothing (petrel switchover --cluster DIR [--to nodeN])
  clone     copy a running server into a new datadir (petrel clone --from HOST:PORT --user U --password P --datadir DIR)
  proxy     route clients to a primary and its replicas by measured lag (petrel proxy --help)
  lab       run the lab's experiments, Petrel beside MariaDB, into a report (the petrel-lab binary:
            petrel lab list; petrel lab run EXPERIMENT|all [--tiny|--quick] [--out DIR])
  binlog    print binary log files, verifying checksums (petrel binlog [-v] FILE...),
            or a server's binary log as it streams it (petrel binlog -R --host H --port P --user U -p PW [--stop-never] FILE)`)
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "server":
		return runServer(args[1:], stdout, stderr, false)
	case "relay":
		return runServer(args[1:], stdout, stderr, true)
	case "binlog":
		return runBinlog(args[1:], stdout, stderr)
	case "cluster":
		return runCluster(args[1:], stdout, stderr)
	case "clone":
		return runClone(args[1:], stdout, stderr)
	case "failover", "switchover":
		return runFailover(args[1:], stdout, stderr, args[0] == "switchover")
	case "proxy":
		return runProxy(args[1:], stdout, stderr)
	case "lab":
		return runLab(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		usage(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "petrel: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

// serverFlags are the options of `petrel server`; the config file may set
// the same ones under their MySQL names.
type serverFlags struct {
	datadir, bind, rootPW, configFile, logLevel, metrics string
	sslCert, sslKey, sslCA, memoryLimit                  string
	port, serverID, shutdownTimeout                      int
	skipLogBin, truncateCorrupt, metricsPprof            bool
}

// runServer runs `petrel server`, or with relay `petrel relay` (same
// flags and option file).
func runServer(args []string, stdout, stderr io.Writer, relay bool) int {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f serverFlags
	fs.StringVar(&f.datadir, "datadir", "", "data directory (initialised on first start)")
	fs.StringVar(&f.bind, "bind-address", "", "address to listen on (default 127.0.0.1)")
	fs.IntVar(&f.port, "port", 0, "MySQL protocol port (default 3306)")
	fs.IntVar(&f.serverID, "server-id", 0, "server_id (default 1)")
	fs.StringVar(&f.rootPW, "root-password", "", "root password set when the datadir is initialised (default: generated and printed once)")
	fs.StringVar(&f.configFile, "config", "", "my.cnf-style option file ([petrel] or [mysqld] section)")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.BoolVar(&f.skipLogBin, "skip-log-bin", false, "run without a binary log (log_bin=OFF)")
	fs.BoolVar(&f.truncateCorrupt, "binlog-recovery-truncate-corrupt", false,
		"at startup, cut the binary log at a corrupt event instead of refusing to start (binlog_recovery_truncate_corrupt; logged, the cut bytes kept aside)")
	fs.StringVar(&f.metrics, "metrics-address", "", "serve Prometheus metrics at http://ADDR/metrics (e.g. 127.0.0.1:9104)")
	fs.BoolVar(&f.metricsPprof, "metrics-pprof", false, "also serve Go's profiles at http://ADDR/debug/pprof/ on --metrics-address (metrics_pprof)")
	fs.StringVar(&f.memoryLimit, "memory-limit", "", "memory budget of the server, bytes or with K/M/G, which Go's collector keeps the heap under (petrel_memory_limit; default half the machine's RAM; GOMEMLIMIT wins)")
	fs.IntVar(&f.shutdownTimeout, "shutdown-timeout", 0, "seconds from SIGTERM to exit, whatever storage is doing (shutdown_timeout; default 10)")
	fs.StringVar(&f.sslCert, "ssl-cert", "", "server certificate, PEM (ssl_cert; default: generated in the datadir at first start)")
	fs.StringVar(&f.sslKey, "ssl-key", "", "server certificate's private key, PEM (ssl_key)")
	fs.StringVar(&f.sslCA, "ssl-ca", "", "CA certificate, PEM (ssl_ca)")
	if relay {
		setUsage(fs, "usage: petrel relay --datadir DIR --port N --server-id N [flags]\n\nA relay keeps its source's binary log (CHANGE REPLICATION SOURCE TO ...; START REPLICA)\nin its own and serves it to replicas, applying nothing.")
	} else {
		setUsage(fs, "usage: petrel server --datadir DIR --port N --server-id N [--root-password PW] [--config FILE] [flags]")
	}
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "petrel server: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })

	vars := map[string]string{}
	if f.configFile != "" {
		cf, err := config.Load(f.configFile)
		if err != nil {
			fmt.Fprintf(stderr, "petrel server: config: %v\n", err)
			return 1
		}
		vars = cf.Merged("mysqld", "petrel")
	}
	if f.skipLogBin {
		vars["skip_log_bin"] = "ON"
	}
	if f.truncateCorrupt {
		vars["binlog_recovery_truncate_corrupt"] = "ON"
	}
	if f.shutdownTimeout != 0 {
		vars["shutdown_timeout"] = strconv.Itoa(f.shutdownTimeout)
	}
	if f.memoryLimit != "" {
		vars["petrel_memory_limit"] = f.memoryLimit
	}
	if v, ok := vars["metrics_pprof"]; ok {
		delete(vars, "metrics_pprof")
		switch strings.ToUpper(v) {
		case "ON", "1", "TRUE", "":
			f.metricsPprof = true
		case "OFF", "0", "FALSE":
		default:
			fmt.Fprintf(stderr, "petrel server: config: metrics_pprof = %q is not ON or OFF\n", v)
			return 1
		}
	}
	// Flags win over the file.
	for name, v := range map[string]string{"ssl_cert": f.sslCert, "ssl_key": f.sslKey, "ssl_ca": f.sslCA} {
		if v != "" {
			vars[name] = v
		}
	}
	// Options the node takes directly; flags win over the file.
	take := func(name string, dst *string) {
		if v, ok := vars[name]; ok {
			if *dst == "" {
				*dst = v
			}
			delete(vars, name)
		}
	}
	takeInt := func(name string, dst *int) error {
		if v, ok := vars[name]; ok {
			delete(vars, name)
			if *dst != 0 {
				return nil
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("config: %s = %q is not a number", name, v)
			}
			*dst = n
		}
		return nil
	}
	take("datadir", &f.datadir)
	take("bind_address", &f.bind)
	take("root_password", &f.rootPW)
	take("metrics_address", &f.metrics)
	if err := takeInt("port", &f.port); err != nil {
		fmt.Fprintf(stderr, "petrel server: %v\n", err)
		return 1
	}
	if err := takeInt("server_id", &f.serverID); err != nil {
		fmt.Fprintf(stderr, "petrel server: %v\n", err)
		return 1
	}
	if f.port == 0 {
		f.port = 3306
	}
	if f.serverID < 0 || f.serverID > 1<<32-1 {
		fmt.Fprintf(stderr, "petrel server: --server-id %d out of range\n", f.serverID)
		return 2
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(strings.ToUpper(f.logLevel))); err != nil {
		fmt.Fprintf(stderr, "petrel server: --log-level: %v\n", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl}))
	// go-mysql-server and vitess log through logrus, a process-wide
	// logger: the process sets it (node never touches process globals),
	// keeping their per-connection chatter out of the log unless debugging.
	logrus.SetOutput(stderr)
	if lvl > slog.LevelDebug {
		logrus.SetLevel(logrus.ErrorLevel)
	}
	tuneGC(logger)
	if addr := os.Getenv("PETREL_PPROF"); addr != "" {
		// Profiling endpoint for benchmark runs; loopback only by convention.
		go func() { logger.Info("pprof", "err", http.ListenAndServe(addr, nil)) }()
		// Contention profiles (/debug/pprof/mutex and /block) cost on every
		// wait, so only a benchmark run that asks for them pays it.
		if os.Getenv("PETREL_PPROF_CONTENTION") != "" {
			runtime.SetMutexProfileFraction(10)
			runtime.SetBlockProfileRate(int(50 * time.Microsecond))
		}
	}

	if spec := os.Getenv(failpoint.EnvVar); spec != "" {
		names, err := failpoint.EnableSpec(spec)
		if err != nil {
			fmt.Fprintf(stderr, "petrel server: %s: %v\n", failpoint.EnvVar, err)
			return 2
		}
		logger.Warn("petrel: failpoints armed (tests only)", "points", names)
	}

	// A signal during start-up ends the process at once: whatever start-up
	// did (recovery included) is redone at the next start, as after a crash.
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	opened := make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			logger.Error("petrel: signal during start-up; exiting at once", "signal", s.String())
			os.Exit(1)
		case <-opened:
		}
	}()
	n, err := node.Open(node.Options{
		Datadir: f.datadir, BindAddress: f.bind, Port: f.port, ServerID: uint32(f.serverID),
		RootPassword: f.rootPW, Variables: vars, Logger: logger, Out: stdout, MetricsAddress: f.metrics,
		MetricsPprof: f.metricsPprof, Relay: relay,
	})
	close(opened)
	if err != nil {
		fmt.Fprintf(stderr, "petrel server: %v\n", err)
		return 1
	}
	setMemoryLimit(n.MemoryLimit(), logger)
	select {
	case s := <-sig:
		return shutdown(n, s, sig, logger, stderr)
	case <-n.RestartRequested():
		// CLONE INSTANCE staged a clone: stop cleanly and run again on the
		// same arguments (same pid, same output), as MySQL restarts after
		// a clone; the start switches the clone in.
		if code := shutdown(n, restartSignal{}, sig, logger, stderr); code != 0 {
			return code
		}
		return reexec(logger, stderr)
	}
}

// restartSignal names the restart in shutdown's log lines.
type restartSignal struct{}

func (restartSignal) String() string { return "restart (CLONE INSTANCE)" }
func (restartSignal) Signal()        {}

// reexec replaces the process with a new petrel on the same arguments.
func reexec(logger *slog.Logger, stderr io.Writer) int {
	exe, err := os.Executable()
	if err == nil {
		logger.Info("petrel: restarting", "exe", exe)
		err = syscall.Exec(exe, os.Args, os.Environ())
	}
	fmt.Fprintf(stderr, "petrel server: restart after CLONE INSTANCE failed: %v; start the server again to switch the clone in\n", err)
	return 1
}

// shutdown stops n within shutdown_timeout of the signal s. The node gets
// the timeout less a small margin, so that it logs what it abandons
// before the watchdog here exits regardless; another signal exits at once.
// The exit status is 0 for a complete shutdown, 1 otherwise (as MySQL's:
// 1 = unsuccessful termination).
func shutdown(n *node.Node, s os.Signal, sig <-chan os.Signal, logger *slog.Logger, stderr io.Writer) int {
	timeout := n.ShutdownTimeout()
	logger.Info("petrel: shutting down", "signal", s.String(), "shutdown_timeout", timeout)
	margin := min(timeout/10, 500*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), timeout-margin)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- n.Shutdown(ctx) }()
	watchdog := time.NewTimer(timeout)
	defer watchdog.Stop()
	select {
	case err := <-done:
		if err != nil {
			fmt.Fprintf(stderr, "petrel server: shutdown: %v\n", err)
			return 1
		}
		logger.Info("petrel: shutdown complete")
		return 0
	case s := <-sig:
		logger.Error("petrel: second signal; exiting at once without finishing the shutdown: the next start recovers from the binlog", "signal", s.String())
		return 1
	case <-watchdog.C:
		logger.Error("petrel: shutdown_timeout passed; exiting without finishing the shutdown: the next start recovers from the binlog", "shutdown_timeout", timeout)
		return 1
	}
}

func runCluster(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cluster", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o cluster.Options
	fs.StringVar(&o.Dir, "datadir", "./cluster", "directory holding one datadir per node (created on first start)")
	fs.IntVar(&o.BasePort, "base-port", 3306, "the primary's port; replica i listens on base-port+i")
	fs.IntVar(&o.Replicas, "replicas", 2, "number of replicas next to the primary (default 0 with --sites)")
	fs.IntVar(&o.Sites, "sites", 0, "remote sites, each with a relay fed by the primary and --replicas-per-site replicas fed by the relay (failing over to the primary)")
	fs.IntVar(&o.ReplicasPerSite, "replicas-per-site", 2, "replicas in each remote site (with --sites)")
	fs.StringVar(&o.RootPassword, "root-password", "petrel", "root password of every node")
	withProxy := fs.Bool("proxy", false, "also run `petrel proxy` in front of the primary and the replicas (--proxy-port, admin port one below)")
	fs.IntVar(&o.ProxyPort, "proxy-port", 6033, "the proxy's client port (with --proxy)")
	fs.BoolVar(&o.Async, "async", false, "asynchronous replication (default: semi-sync, each commit acknowledged by a replica)")
	fs.BoolVar(&o.AutoFailover, "auto-failover", false, "replace a primary confirmed dead by its most advanced replica (semi-sync strict: a cut-off primary takes no writes)")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	setUsage(fs, "usage: petrel cluster [--datadir DIR] [--base-port P] [--replicas N] [--root-password PW] [--async] [--auto-failover] [flags]")
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "petrel cluster: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if !*withProxy {
		o.ProxyPort = 0
	}
	if o.Sites > 0 {
		explicit := false
		fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "replicas" })
		if !explicit {
			o.Replicas = 0
		}
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(strings.ToUpper(*logLevel))); err != nil {
		fmt.Fprintf(stderr, "petrel cluster: --log-level: %v\n", err)
		return 2
	}
	o.Out = stdout
	o.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl}))
	tuneGC(o.Logger)
	// SIGHUP too: a closed terminal (`make run`) stops the cluster
	// cleanly. A second signal kills the nodes at once.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	force := make(chan struct{})
	o.Force = force
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for n := 0; ; n++ {
			select {
			case <-done:
				return
			case s := <-sigs:
				if n == 0 {
					o.Logger.Info("petrel cluster: stopping the nodes", "signal", s.String())
					cancel()
					continue
				}
				o.Logger.Warn("petrel cluster: second signal; killing the nodes", "signal", s.String())
				close(force)
				return
			}
		}
	}()
	if err := cluster.Run(ctx, o); err != nil {
		fmt.Fprintf(stderr, "petrel cluster: %v\n", err)
		return 1
	}
	return 0
}
