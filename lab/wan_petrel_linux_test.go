package lab

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestWANPetrelReplication runs a Petrel primary in side 0 of a WAN and a
// replica in side 1 (PetrelOptions.WAN), the replica replicating across
// the emulated line (10 ms each way, 5% loss both ways): N rows written
// on the primary through WAN.Dial arrive with equal gtid_executed and
// equal checksums, and the WAN counted at least the rows' bytes and some
// drops.
func TestWANPetrelReplication(t *testing.T) {
	imp := Impairment{Delay: 10 * time.Millisecond, Loss: 0.05}
	w := startWAN(t, WANOptions{AtoB: imp, BtoA: imp, Seed: 17})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const password = "petrel"
	var srv [2]*Petrel
	var db [2]*sql.DB
	for side := range 2 {
		p, err := StartPetrel(ctx, PetrelOptions{Binary: bin, Datadir: t.TempDir(), ServerID: side + 1,
			RootPassword: password, WAN: w, Side: side})
		if err != nil {
			t.Fatal(err)
		}
		srv[side] = p
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("side %d log:\n%s", side, tail(p.Log(), 8<<10))
			}
			if err := p.Stop(context.Background()); err != nil {
				t.Errorf("stop side %d: %v", side, err)
			}
		})
		if got, want := p.Host(), w.IP(side); got != want {
			t.Fatalf("Host() = %q, want %q", got, want)
		}
		if db[side], err = p.DB(""); err != nil {
			t.Fatal(err)
		}
		defer db[side].Close()
	}
	exec := func(d *sql.DB, stmts ...string) {
		t.Helper()
		for _, q := range stmts {
			if _, err := d.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	str := func(d *sql.DB, q string) string {
		t.Helper()
		var s sql.NullString
		if err := d.QueryRowContext(ctx, q).Scan(&s); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return s.String
	}
	// The primary is not reachable from the root namespace's loopback:
	// the connection went through the namespace.
	if got := str(db[0], "SELECT @@server_id"); got != "1" {
		t.Fatalf("primary server_id = %s", got)
	}
	before := w.Stats()
	exec(db[1], fmt.Sprintf("CHANGE REPLICATION SOURCE TO SOURCE_HOST='%s', SOURCE_PORT=%d, SOURCE_USER='root', "+
		"SOURCE_PASSWORD='%s', SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1", srv[0].Host(), srv[0].Port(), password),
		"START REPLICA")
	const n = 2000
	pad := strings.Repeat("x", 200)
	exec(db[0], "CREATE DATABASE w", "CREATE TABLE w.t (id INT PRIMARY KEY, v VARCHAR(255))")
	for i := 0; i < n; i += 50 {
		var vals []string
		for j := i; j < i+50; j++ {
			vals = append(vals, fmt.Sprintf("(%d, '%s%d')", j, pad, j))
		}
		exec(db[0], "INSERT INTO w.t VALUES "+strings.Join(vals, ","))
	}
	want := str(db[0], "SELECT @@GLOBAL.gtid_executed")
	deadline := time.Now().Add(2 * time.Minute)
	for str(db[1], "SELECT @@GLOBAL.gtid_executed") != want {
		if time.Now().After(deadline) {
			t.Fatalf("replica gtid_executed %q, primary %q after 2m", str(db[1], "SELECT @@GLOBAL.gtid_executed"), want)
		}
		time.Sleep(100 * time.Millisecond)
	}
	const sum = "SELECT CONCAT(COUNT(*), ':', SUM(id), ':', SUM(CRC32(v))) FROM w.t"
	if p, r := str(db[0], sum), str(db[1], sum); p != r || !strings.HasPrefix(p, fmt.Sprint(n, ":")) {
		t.Fatalf("checksums: primary %s, replica %s (want %d rows)", p, r, n)
	}
	after := w.Stats()
	crossed := after[AtoB].ForwardedBytes - before[AtoB].ForwardedBytes
	if crossed < n*int64(len(pad)) {
		t.Errorf("%d bytes crossed side 0 -> 1, less than the rows' %d", crossed, n*len(pad))
	}
	if back := after[BtoA].ForwardedBytes - before[BtoA].ForwardedBytes; back <= 0 {
		t.Errorf("nothing crossed side 1 -> 0 (acks, the replica's login): %d bytes", back)
	}
	if after[AtoB].DroppedLoss+after[BtoA].DroppedLoss == 0 {
		t.Errorf("no packet dropped at 5%% loss: %+v", after)
	}
	t.Logf("crossed %d bytes A->B, %d B->A; dropped %d + %d", crossed,
		after[BtoA].ForwardedBytes-before[BtoA].ForwardedBytes, after[AtoB].DroppedLoss, after[BtoA].DroppedLoss)
}
