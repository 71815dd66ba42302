package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// runMainEnv makes the test binary behave as petrel itself, so the help
// test can check real exit statuses.
const runMainEnv = "PETREL_HELP_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// TestHelp runs `petrel --help` and `petrel COMMAND --help` as processes:
// each exits 0 with its usage on stdout, nothing on stderr, and the usage
// names every flag of the command.
func TestHelp(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	proxyFlags := []string{"port", "admin-port", "bind-address", "primary", "replicas", "max-replication-lag",
		"check-interval", "check-timeout", "recover-checks", "read-mode", "read-your-writes-timeout", "monitor-user",
		"monitor-password", "pack-sessions", "max-connections-per-backend", "max-clients", "max-allowed-packet",
		"ssl-cert", "ssl-key", "skip-ssl", "metrics-address", "config", "log-level", "site", "discover", "layout",
		"backend-ssl", "backend-ssl-ca"}
	serverFlags := []string{"datadir", "bind-address", "port", "server-id", "root-password", "config", "log-level",
		"skip-log-bin", "binlog-recovery-truncate-corrupt", "metrics-address", "metrics-pprof", "memory-limit",
		"shutdown-timeout", "ssl-cert", "ssl-key", "ssl-ca"}
	for _, tc := range []struct {
		args  []string
		names []string // flags, or for the bare command its subcommands
	}{
		{[]string{"--help"}, []string{"server", "relay", "cluster", "failover", "switchover", "clone", "proxy", "lab", "binlog"}},
		{[]string{"help"}, []string{"server", "proxy"}},
		{[]string{"server", "--help"}, serverFlags},
		{[]string{"relay", "--help"}, serverFlags},
		{[]string{"server", "-h"}, serverFlags},
		{[]string{"cluster", "--help"}, []string{"datadir", "base-port", "replicas", "sites", "replicas-per-site",
			"root-password", "proxy", "proxy-port", "async", "auto-failover", "log-level"}},
		{[]string{"failover", "--help"}, []string{"cluster", "root-password", "wait", "apply-timeout", "max-lag"}},
		{[]string{"switchover", "--help"}, []string{"cluster", "root-password", "to", "apply-timeout", "max-lag"}},
		{[]string{"clone", "--help"}, []string{"from", "user", "password", "datadir", "max-bandwidth", "compress",
			"ssl-mode", "stream"}},
		{[]string{"proxy", "--help"}, proxyFlags},
		{[]string{"binlog", "--help"}, []string{"v", "verbose", "R", "read-from-remote-server", "h", "host", "P",
			"port", "u", "user", "p", "password", "j", "start-position", "t", "to-last-log", "stop-never",
			"connection-server-id", "stop-never-slave-server-id", "raw", "r", "result-file"}},
		// Without the petrel-lab binary (PATH is emptied below), petrel
		// still answers its help.
		{[]string{"lab", "--help"}, []string{"tiny", "quick", "out", "rounds", "systems", "no-root", "petrel-binary"}},
	} {
		name := strings.Join(tc.args, " ")
		cmd := exec.Command(self, tc.args...)
		cmd.Env = append(os.Environ(), runMainEnv+"=1", "PATH="+t.TempDir())
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Errorf("petrel %s: exit status %d, want 0; stderr:\n%s", name, exit.ExitCode(), stderr.String())
			continue
		} else if err != nil {
			t.Fatalf("petrel %s: %v", name, err)
		}
		out := stdout.String()
		if !strings.HasPrefix(out, "usage: petrel") {
			t.Errorf("petrel %s: stdout does not start with the usage:\n%s", name, out)
		}
		if tc.args[0] != "lab" && stderr.Len() > 0 {
			t.Errorf("petrel %s: stderr not empty:\n%s", name, stderr.String())
		}
		for _, n := range tc.names {
			if len(tc.args) == 1 {
				if !strings.Contains(out, "\n  "+n+" ") {
					t.Errorf("petrel %s: usage lacks the command %s:\n%s", name, n, out)
				}
			} else if !strings.Contains(out, "-"+n+" ") && !strings.Contains(out, "-"+n+"\n") &&
				!strings.Contains(out, "-"+n+"\t") && !strings.Contains(out, "-"+n+"]") && !strings.Contains(out, "-"+n+"|") {
				t.Errorf("petrel %s: usage lacks -%s:\n%s", name, n, out)
			}
		}
	}
}

// TestBadFlagStatus: an unknown flag is still a usage error, status 2,
// with the message and the usage on stderr and nothing on stdout.
func TestBadFlagStatus(t *testing.T) {
	for _, cmd := range []string{"server", "relay", "cluster", "failover", "switchover", "clone", "proxy", "binlog"} {
		var out, errb bytes.Buffer
		if code := run([]string{cmd, "--no-such-flag"}, &out, &errb); code != 2 {
			t.Errorf("%s --no-such-flag: status %d, want 2", cmd, code)
		}
		if out.Len() != 0 || !strings.Contains(errb.String(), "flag provided but not defined: -no-such-flag") ||
			!strings.Contains(errb.String(), "usage: petrel") {
			t.Errorf("%s --no-such-flag: stdout %q, stderr %q", cmd, out.String(), errb.String())
		}
	}
}
