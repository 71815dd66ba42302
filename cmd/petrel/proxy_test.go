package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProxyHelp: petrel proxy --help exits 0 and lists every flag.
func TestProxyHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runProxy([]string{"--help"}, &out, &errb); code != 0 {
		t.Fatalf("--help: status %d, stderr %q", code, errb.String())
	}
	for _, f := range []string{"port", "admin-port", "bind-address", "primary", "replicas", "max-replication-lag",
		"check-interval", "check-timeout", "recover-checks", "read-mode", "read-your-writes-timeout", "monitor-user",
		"monitor-password", "max-connections-per-backend", "max-clients", "max-allowed-packet", "ssl-cert", "ssl-key",
		"skip-ssl", "metrics-address", "config", "log-level", "site", "discover", "layout", "backend-ssl", "backend-ssl-ca"} {
		if !strings.Contains(out.String(), "-"+f+" ") && !strings.Contains(out.String(), "-"+f+"\n") {
			t.Errorf("--help lacks -%s:\n%s", f, out.String())
		}
	}
}

// TestProxyUsageErrors: bad flags and option files are refused with
// status 2 and a clear message, before anything listens.
func TestProxyUsageErrors(t *testing.T) {
	cnf := func(body string) string {
		p := filepath.Join(t.TempDir(), "proxy.cnf")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{}, "--primary is required"},
		{[]string{"--primary", "127.0.0.1:1", "--read-mode", "fastest"}, `--read-mode "fastest"`},
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"--config", cnf("[proxy]\nprimary = 127.0.0.1:1\nmax_lag = 1s\n")}, `unknown option "max_lag"`},
		{[]string{"--config", cnf("[proxy]\nprimary = 127.0.0.1:1\nmax_replication_lag = soon\n")}, "max_replication_lag = soon"},
		{[]string{"--config", cnf("[proxy]\nmax_replication_lag = 2s\n")}, "--primary is required"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--primary", "127.0.0.1:1", "--replicas", "127.0.0.1:2@east"}, "the site after @ must be a number"},
		{[]string{"--primary", "127.0.0.1:1", "--replicas", "127.0.0.1"}, "want host:port[@SITE]"},
		{[]string{"--primary", "127.0.0.1:1", "--discover", "maybe"}, `--discover "maybe"`},
	} {
		var out, errb bytes.Buffer
		if code := runProxy(tc.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("petrel proxy %q: status %d, stderr %q; want 2 and %q", tc.args, code, errb.String(), tc.want)
		}
	}
}
