package clonesql

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gms "github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"petrel/binlog"
	"petrel/clone"
	"petrel/internal/base"
	"petrel/sqlengine"
	"petrel/sqlengine/wire"
	"petrel/storage"
)

// realDonor is a donor instance as node assembles it (storage with the
// binary log as its WAL, the SQL engine with TLS, a clone.Donor with a
// data port, this package's statements) holding values of the given
// sizes (random bytes); it returns the port and the values. otherCert
// gives the data port another certificate than the SQL port's.
func realDonor(t *testing.T, otherCert bool, sizes ...int) (int, *clone.Donor, map[string][]byte) {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir := t.TempDir()
	st, err := storage.Open(storage.Options{Dir: filepath.Join(dir, "data"), Logger: quiet, LogIsWAL: true, ReserveSize: -1, CacheSize: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	sid, _ := base.ParseSID("3e11fa47-71ca-11e1-9e33-c80aa9429562")
	l, err := binlog.Open(binlog.Options{Dir: filepath.Join(dir, "binlog"), ServerUUID: sid, Store: st, Logger: quiet, TailSize: 1 << 20})
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	st.SetSink(l)
	values := map[string][]byte{}
	for i, n := range sizes {
		v := make([]byte, n)
		rand.Read(v)
		k := fmt.Sprintf("clone-stream-%d", i)
		if err := st.SetMetaSync(k, v); err != nil {
			t.Fatal(err)
		}
		values[k] = v
	}
	tlsCfg, _, err := wire.ServerTLS(wire.TLSOptions{Datadir: dir})
	if err != nil {
		t.Fatal(err)
	}
	e, err := sqlengine.New(sqlengine.Options{Store: st, ServerUUID: sid.String(), Logger: quiet, TLS: tlsCfg})
	if err != nil {
		t.Fatal(err)
	}
	dataTLS := tlsCfg
	if otherCert {
		if dataTLS, _, err = wire.ServerTLS(wire.TLSOptions{Datadir: t.TempDir()}); err != nil {
			t.Fatal(err)
		}
	}
	vars := Variables(e.Globals())
	d, err := clone.NewDonor(clone.DonorOptions{Datadir: dir, Store: st, Log: l, Logger: quiet, DataAddress: "127.0.0.1:0", TLS: dataTLS, MaxBandwidth: vars.MaxBandwidth})
	if err != nil {
		t.Fatal(err)
	}
	Register(e, Options{Donor: d, Store: st, Log: l, Datadir: dir, Logger: quiet, Vars: vars})
	if err := e.CreateRoot("pw"); err != nil {
		t.Fatal(err)
	}
	srv, err := e.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Close()
		d.Close()
		l.Close()
		st.Close()
	})
	_, port, _ := net.SplitHostPort(srv.Addr())
	p, _ := strconv.Atoi(port)
	return p, d, values
}

// cutConn records a data connection's mode byte and cuts it after cutAt
// bytes read (0: never).
type cutConn struct {
	net.Conn
	cutAt, read int64
	mode        *atomic.Int32
	once        sync.Once
}

func (c *cutConn) Read(p []byte) (int, error) {
	if c.cutAt > 0 && c.read+int64(len(p)) >= c.cutAt {
		c.Conn.Close()
		return 0, errors.New("cut by the test")
	}
	n, err := c.Conn.Read(p)
	c.read += int64(n)
	return n, err
}

func (c *cutConn) Write(p []byte) (int, error) {
	if len(p) > 0 {
		c.once.Do(func() { c.mode.Store(int32(p[0])) })
	}
	return c.Conn.Write(p)
}

// TestCloneOverTheStream: CLONE over the data stream from a donor whose
// SQL connection uses TLS. The stream uses TLS too (its mode byte); cut
// mid-file it fails with ER_CLONE_DONOR (3862, client error 2013), leaves
// no staging directory (Install finds nothing) and releases the donor's
// snapshot; the clone run again succeeds and the switched-in storage
// holds the donor's values byte for byte, as does a clone over CLONE
// READ; clone_max_data_bandwidth paces the stream.
func TestCloneOverTheStream(t *testing.T) {
	port, donor, values := realDonor(t, false, 3<<20, 300<<10, 1<<20, 10)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	fetch := func(dir string, o clone.FetchOptions) (*clone.Result, error) {
		o.Host, o.Port, o.User, o.Password, o.Datadir, o.Timeout, o.Logger = "127.0.0.1", port, "root", "pw", dir, 10*time.Second, quiet
		return clone.Fetch(context.Background(), o)
	}
	check := func(what, dir string) {
		t.Helper()
		if did, err := clone.Install(dir, quiet); err != nil || did != clone.Switched {
			t.Fatalf("%s: Install: %v, %v; want the clone switched in", what, did, err)
		}
		st, err := storage.Open(storage.Options{Dir: filepath.Join(dir, "data"), Logger: quiet, LogIsWAL: true, ReserveSize: -1, CacheSize: 8 << 20})
		if err != nil {
			t.Fatalf("%s: the cloned storage does not open: %v", what, err)
		}
		defer st.Close()
		for k, want := range values {
			got, err := st.GetMeta(k)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s: %s holds %d bytes (%v), the donor's %d differ", what, k, len(got), err, len(want))
			}
		}
	}

	var mode atomic.Int32
	cut := filepath.Join(t.TempDir(), "cut")
	_, err := fetch(cut, clone.FetchOptions{Parallel: 2, DataConn: func(c net.Conn) net.Conn {
		return &cutConn{Conn: c, cutAt: 1<<20 + 500, mode: &mode}
	}})
	var se *mysql.SQLError
	if !errors.As(sqlError(err), &se) || se.Num != 3862 || !bytes.Contains([]byte(se.Message), []byte("2013")) {
		t.Fatalf("a cut stream: %v (as SQL %v), want 3862 naming 2013", err, sqlError(err))
	}
	if mode.Load() != 'T' {
		t.Fatalf("the data connection's mode %q: the SQL connection used TLS, the stream must too", rune(mode.Load()))
	}
	if _, err := os.Stat(filepath.Join(cut, clone.StagingDir)); !os.IsNotExist(err) {
		t.Fatalf("the cut clone left its staging directory (%v)", err)
	}
	if did, err := clone.Install(cut, quiet); err != nil || did != clone.NothingStaged {
		t.Fatalf("Install after the cut clone: %v, %v; want nothing staged", did, err)
	}
	if n := donor.Active(); n != 0 {
		t.Fatalf("the donor holds %d snapshots after the failed clone, want 0", n)
	}

	mode.Store(0)
	res, err := fetch(cut, clone.FetchOptions{Parallel: 2, DataConn: func(c net.Conn) net.Conn { return &cutConn{Conn: c, mode: &mode} }})
	if err != nil {
		t.Fatalf("the clone run again: %v", err)
	}
	if mode.Load() != 'T' || res.Bytes < 4<<20 {
		t.Fatalf("the clone run again: mode %q, %d bytes", rune(mode.Load()), res.Bytes)
	}
	check("the stream", cut)

	read := filepath.Join(t.TempDir(), "read")
	mode.Store(0)
	if _, err := fetch(read, clone.FetchOptions{NoStream: true, DataConn: func(c net.Conn) net.Conn { return &cutConn{Conn: c, mode: &mode} }}); err != nil {
		t.Fatalf("a clone with CLONE READ: %v", err)
	}
	if mode.Load() != 0 {
		t.Fatal("NoStream opened a data connection")
	}
	check("CLONE READ", read)

	// 8 MiB/s on the donor, then on the recipient: the ~4.3 MB after the
	// first frame take at least 0.4 s.
	for _, side := range []string{"donor", "recipient"} {
		o := clone.FetchOptions{}
		if side == "donor" {
			setGlobal(t, "clone_max_data_bandwidth", uint64(8)) // the donor's pushed setting
		} else {
			o.MaxBandwidth = func() int64 { return 8 << 20 }
		}
		paced := filepath.Join(t.TempDir(), "paced-"+side)
		start := time.Now()
		_, err := fetch(paced, o)
		setGlobal(t, "clone_max_data_bandwidth", uint64(0))
		if err != nil {
			t.Fatal(err)
		}
		if el := time.Since(start); el < 400*time.Millisecond {
			t.Fatalf("a clone of %d bytes at 8 MiB/s on the %s took %v", res.Bytes, side, el)
		}
		check("paced on the "+side, paced)
	}
}

// TestCloneStreamPinsTheCertificate: a data port presenting another
// certificate than the one the SQL connection saw is refused
// (ER_CLONE_PROTOCOL, 3863), nothing is kept, and the donor's snapshot is
// released.
func TestCloneStreamPinsTheCertificate(t *testing.T) {
	port, donor, _ := realDonor(t, true, 10)
	dir := filepath.Join(t.TempDir(), "target")
	_, err := clone.Fetch(context.Background(), clone.FetchOptions{Host: "127.0.0.1", Port: port, User: "root", Password: "pw", Datadir: dir,
		Timeout: 10 * time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	var se *mysql.SQLError
	if !errors.As(sqlError(err), &se) || se.Num != 3863 || !bytes.Contains([]byte(se.Message), []byte("not the one the SQL connection saw")) {
		t.Fatalf("a data port with another certificate: %v (as SQL %v), want 3863 naming the certificate", err, sqlError(err))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("the refused clone left %d entries in the target", len(entries))
	}
	if n := donor.Active(); n != 0 {
		t.Fatalf("the donor holds %d snapshots after the refused clone, want 0", n)
	}
}

// setGlobal sets a global variable as SET GLOBAL does (its change hook
// included).
// setGlobal is a SET GLOBAL without a session: it reaches the engine
// opened last, the donor's.
func setGlobal(t *testing.T, name string, v any) {
	t.Helper()
	if err := gms.SystemVariables.SetGlobal(gms.NewEmptyContext(), name, v); err != nil {
		t.Fatalf("SET GLOBAL %s = %v: %v", name, v, err)
	}
}
