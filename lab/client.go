package lab

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// clientTimeout bounds one CLI invocation when ctx has no deadline.
const clientTimeout = 2 * time.Minute

// RunMariaDBClient runs sql with the mariadb command-line client against
// 127.0.0.1:port over TCP and returns its stdout: tab-separated rows, one
// per line, without column names. db may be "" for no default database.
// The error includes the client's stderr (e.g. "ERROR 1146 (42S02) ...").
// extra are more client flags, placed before -e (e.g.
// "--default-character-set=latin1").
//
// Flags and why:
//   - --no-defaults: ignore /etc/mysql/my.cnf (its client socket) and any
//     ~/.my.cnf; it must come first.
//   - --password=PW, never -pPW: with an empty password, "-p" alone makes
//     the client prompt on the terminal, while "--password=" means empty.
//   - --skip-ssl: the 10.11 client does not require TLS, but 11.x clients
//     verify server certificates by default and Petrel serves no TLS;
//     10.11 accepts the flag, so it is passed to keep both working.
//   - --connect-timeout: no hang on a port nobody answers.
func RunMariaDBClient(ctx context.Context, port int, user, password, db, sql string, extra ...string) (string, error) {
	ctx, cancel := contextWithDefaultTimeout(ctx, clientTimeout)
	defer cancel()
	args := []string{
		"--no-defaults",
		"--protocol=TCP",
		"-h", "127.0.0.1",
		"-P", strconv.Itoa(port),
		"-u", user,
		"--password=" + password,
		"--skip-ssl",
		"--connect-timeout=10",
		"--batch",
		"--skip-column-names",
	}
	if db != "" {
		args = append(args, "--database="+db)
	}
	args = append(args, extra...)
	args = append(args, "-e", sql)
	cmd := exec.CommandContext(ctx, findTool("mariadb", "/usr/bin/mariadb"), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	cmd.WaitDelay = waitDelay
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("lab: mariadb client on port %d: %w: %s", port, err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
