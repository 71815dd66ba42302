package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"petrel/internal/config"
	"petrel/proxy"
)

// runProxy runs `petrel proxy`: flags, or the same names (with
// underscores) in the [proxy] section of --config; a flag given on the
// command line wins over the file.
func runProxy(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bind := fs.String("bind-address", "127.0.0.1", "address the client and admin ports listen on")
	port := fs.Int("port", 6033, "clients' MySQL port")
	adminPort := fs.Int("admin-port", 6032, "admin MySQL port (SHOW SERVERS); 0: none")
	primary := fs.String("primary", "", "the primary, host:port (required)")
	replicas := fs.String("replicas", "", "the replicas, host:port[@SITE],... (SITE: the replica's site number, default 0)")
	site := fs.Int("site", 0, "the proxy's own site: reads prefer its replicas, then other sites', then the primary")
	discover := fs.String("discover", "auto", "add the replicas the backends list in SHOW REPLICAS while running: on, off, or auto (on when neither --replicas nor --layout is given)")
	layout := fs.String("layout", "", "JSON layout file naming the primary and the replicas with their sites, followed when it changes (petrel cluster writes one)")
	maxLag := fs.Duration("max-replication-lag", time.Second, "a replica serves reads while its measured lag is at most this")
	interval := fs.Duration("check-interval", 500*time.Millisecond, "how often each backend's lag is measured")
	checkTimeout := fs.Duration("check-timeout", time.Second, "deadline of one check (a late or failed check: lag unknown, no reads)")
	recover := fs.Int("recover-checks", 2, "good checks in a row before a new or drained replica serves")
	mode := fs.String("read-mode", "read-your-writes", "a session's default read mode: read-your-writes, bounded, any or primary")
	rywTimeout := fs.Duration("read-your-writes-timeout", time.Second, "how long a read waits for a replica to apply the session's writes before it goes to the primary")
	monUser := fs.String("monitor-user", "root", "account that checks backends and reads the primary's accounts")
	monPW := fs.String("monitor-password", "", "its password")
	pack := fs.Int("pack-sessions", 0, "sessions a replica takes before the next replica gets any (one replica serves a light load, the others sleep; for replicas that share cores); 0: spread sessions round-robin")
	maxConns := fs.Int("max-connections-per-backend", 100, "cap on the proxy's connections to each backend")
	maxClients := fs.Int("max-clients", 10000, "cap on client connections (error 1040 past it)")
	maxPacket := fs.Int("max-allowed-packet", 64<<20, "largest client packet, bytes (error 1153 past it)")
	sslCert := fs.String("ssl-cert", "", "certificate offered to clients, PEM (default: a self-signed one made at start)")
	sslKey := fs.String("ssl-key", "", "its private key, PEM")
	skipSSL := fs.Bool("skip-ssl", false, "offer clients no TLS")
	backendSSL := fs.String("backend-ssl", "off", "TLS to the backends: off, preferred or required")
	backendCA := fs.String("backend-ssl-ca", "", "CA certificates (PEM) the backends' certificates are verified against (default: not verified)")
	metrics := fs.String("metrics-address", "", "serve Prometheus metrics at http://ADDR/metrics (e.g. 127.0.0.1:9105)")
	configFile := fs.String("config", "", "my.cnf-style option file: these flags' names in a [proxy] section")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	setUsage(fs, "usage: petrel proxy --primary HOST:PORT [--replicas HOST:PORT,...] [flags]")
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "petrel proxy: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *configFile != "" {
		cf, err := config.Load(*configFile)
		if err != nil {
			fmt.Fprintf(stderr, "petrel proxy: config: %v\n", err)
			return 1
		}
		vars := cf.Merged("proxy")
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		known := map[string]bool{}
		var bad error
		fs.VisitAll(func(f *flag.Flag) {
			k := config.Normalize(f.Name)
			known[k] = true
			if v, ok := vars[k]; ok && !set[f.Name] && f.Name != "config" && bad == nil {
				if err := fs.Set(f.Name, v); err != nil {
					bad = fmt.Errorf("%s = %s: %w", k, v, err)
				}
			}
		})
		for k := range vars {
			if !known[k] && bad == nil {
				bad = fmt.Errorf("unknown option %q", k)
			}
		}
		if bad != nil {
			fmt.Fprintf(stderr, "petrel proxy: config %s: %v\n", *configFile, bad)
			return 2
		}
	}
	if *primary == "" {
		fmt.Fprintln(stderr, "petrel proxy: --primary is required")
		return 2
	}
	m, ok := proxy.ParseMode(*mode)
	if !ok {
		fmt.Fprintf(stderr, "petrel proxy: --read-mode %q: want read-your-writes, bounded, any or primary\n", *mode)
		return 2
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(strings.ToUpper(*logLevel))); err != nil {
		fmt.Fprintf(stderr, "petrel proxy: --log-level: %v\n", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl}))
	opts := proxy.Options{
		Listen:             net.JoinHostPort(*bind, strconv.Itoa(*port)),
		AdminListen:        "-",
		Primary:            *primary,
		MonitorUser:        *monUser,
		MonitorPassword:    *monPW,
		DefaultMode:        m,
		CheckInterval:      *interval,
		CheckTimeout:       *checkTimeout,
		MaxConnsPerBackend: *maxConns,
		MaxClients:         *maxClients,
		MaxAllowedPacket:   *maxPacket,
		Router:             proxy.RouterOptions{MaxLag: *maxLag, RecoverChecks: *recover, WaitTimeout: *rywTimeout, PackSessions: *pack},
		Logger:             logger,
		MetricsListen:      *metrics,
		TLSCertFile:        *sslCert,
		TLSKeyFile:         *sslKey,
		NoTLS:              *skipSSL,
		BackendSSL:         *backendSSL,
		BackendSSLCA:       *backendCA,
	}
	if *adminPort > 0 {
		opts.AdminListen = net.JoinHostPort(*bind, strconv.Itoa(*adminPort))
	}
	for _, r := range strings.Split(*replicas, ",") {
		if r = strings.TrimSpace(r); r == "" {
			continue
		}
		addr, siteText, hasSite := strings.Cut(r, "@")
		n := 0
		if hasSite {
			var err error
			if n, err = strconv.Atoi(siteText); err != nil || n < 0 {
				fmt.Fprintf(stderr, "petrel proxy: --replicas %q: the site after @ must be a number >= 0\n", r)
				return 2
			}
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			fmt.Fprintf(stderr, "petrel proxy: --replicas %q: want host:port[@SITE]\n", r)
			return 2
		}
		opts.Replicas = append(opts.Replicas, addr)
		opts.ReplicaSites = append(opts.ReplicaSites, n)
	}
	switch *discover {
	case "on":
		opts.Discover = true
	case "off":
	case "auto":
		opts.Discover = len(opts.Replicas) == 0 && *layout == ""
	default:
		fmt.Fprintf(stderr, "petrel proxy: --discover %q: want on, off or auto\n", *discover)
		return 2
	}
	opts.Router.Site = *site
	opts.LayoutFile = *layout
	srv, err := proxy.Start(opts)
	if err != nil {
		fmt.Fprintf(stderr, "petrel proxy: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "petrel proxy: clients on %s, admin on %s\n", srv.Addr(), srv.AdminAddr())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	s := <-sigs
	logger.Info("petrel proxy: stopping", "signal", s.String())
	srv.Close()
	return 0
}
