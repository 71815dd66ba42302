package e2e

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tcpSock is one established TCP socket as `ss -tinp` shows it.
type tcpSock struct {
	local, peer string // addr:port
	pids        []int
	info        []string // the info line's fields (congestion control among them)
}

// listSockets runs `ss -Htinp state established`.
func listSockets(t *testing.T, ctx context.Context) []tcpSock {
	t.Helper()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(cctx, requireTool(t, "ss", "/usr/bin/ss"), "-Htinp", "state", "established").CombinedOutput()
	if err != nil {
		t.Fatalf("ss: %v: %s", err, out)
	}
	var socks []tcpSock
	for _, line := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if len(socks) > 0 {
				s := &socks[len(socks)-1]
				s.info = append(s.info, strings.Fields(line)...)
			}
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		s := tcpSock{local: f[2], peer: f[3]}
		for _, p := range strings.Split(line, "pid=")[1:] {
			if n, err := strconv.Atoi(strings.SplitN(p, ",", 2)[0]); err == nil {
				s.pids = append(s.pids, n)
			}
		}
		socks = append(socks, s)
	}
	return socks
}

func (s tcpSock) has(field string) bool {
	for _, f := range s.info {
		if f == field {
			return true
		}
	}
	return false
}

func (s tcpSock) ownedBy(pid int) bool {
	for _, p := range s.pids {
		if p == pid {
			return true
		}
	}
	return false
}

// replLink finds both ends of the replica's link to the source: the
// replica process's socket to the source's port, and the source process's
// socket whose peer is that socket.
func replLink(t *testing.T, ctx context.Context, srcPid, repPid, srcPort int) (rep, src tcpSock, ok bool) {
	socks := listSockets(t, ctx)
	suffix := ":" + strconv.Itoa(srcPort)
	for _, s := range socks {
		if s.ownedBy(repPid) && strings.HasSuffix(s.peer, suffix) {
			rep, ok = s, true
		}
	}
	if !ok {
		return rep, src, false
	}
	for _, s := range socks {
		if s.ownedBy(srcPid) && s.peer == rep.local && s.local == rep.peer {
			return rep, s, true
		}
	}
	return rep, src, false
}

// Both ends of a replication link run the congestion control Petrel
// chose (BBR by default: this host's kernel has it), as `ss -ti` shows; each end follows its own server's setting, and an
// algorithm the kernel lacks is refused with error 1231.
func TestReplicationTCPCongestion(t *testing.T) {
	ctx := testContext(t, 90*time.Second)
	src, rep, sdb, rdb := replicatingPair(t, ctx, "CREATE DATABASE tcpcc", "CREATE TABLE tcpcc.t (id INT PRIMARY KEY)")
	for _, db := range []querier{sdb, rdb} {
		if got := queryString(t, ctx, db, "SELECT @@GLOBAL.replication_tcp_congestion_control"); got != "bbr" {
			t.Fatalf("replication_tcp_congestion_control = %q, want bbr (the kernel has it)", got)
		}
	}
	waitLink := func(what, wantRep, wantSrc string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			r, s, ok := replLink(t, ctx, src.Pid(), rep.Pid(), src.Port())
			if ok && r.has(wantRep) && s.has(wantSrc) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: replica end %v (found %v), source end %v; want %s / %s", what, r.info, ok, s.info, wantRep, wantSrc)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	waitLink("default", "bbr", "bbr")

	// The replica's end follows the replica's setting at its next connect;
	// the source's end keeps the source's.
	mustExec(t, ctx, rdb, "STOP REPLICA", "SET GLOBAL replication_tcp_congestion_control = 'reno'", "START REPLICA")
	waitLink("replica set to reno", "reno", "bbr")
	mustExec(t, ctx, sdb, "INSERT INTO tcpcc.t VALUES (1), (2), (3)")
	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)
	if n := queryInt(t, ctx, rdb, "SELECT COUNT(*) FROM tcpcc.t"); n != 3 {
		t.Fatalf("replica has %d rows, want 3", n)
	}

	_, err := rdb.ExecContext(ctx, "SET GLOBAL replication_tcp_congestion_control = 'no_such_cc'")
	wantErrNo(t, "SET GLOBAL to an algorithm the kernel lacks", err, 1231)
	if got := queryString(t, ctx, rdb, "SELECT @@GLOBAL.replication_tcp_congestion_control"); got != "reno" {
		t.Fatalf("after the refused SET: %q, want reno", got)
	}
}
