package lab

import (
	"container/heap"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
)

// A WAN is two network namespaces, A (side 0) and B (side 1), joined by a
// packet-level emulator: each namespace has a TUN device, and a forwarder
// in this process reads the IP packets one side's kernel sends into its
// TUN, applies that direction's Impairment and writes them into the other
// side's TUN. Unlike Link, which splits the TCP connection, both ends'
// kernel TCP stacks see the WAN: the round trip, the losses, the
// bottleneck's queue, so their congestion control (CUBIC, BBR) reacts
// as on a real line. The kernel here has no tc netem, hence userspace.
//
// Side 0 has address IP(0) = 10.214.N.1/24 on its TUN and side 1 has
// IP(1) = 10.214.N.2/24; loopbacks are up. Processes run inside a side
// with Command (`ip netns exec`); this process can open sockets there
// with Listen, Dial and Do.
//
// The forwarder is a shell around wanPolicy, the deterministic core that
// decides each packet's fate: one reader goroutine per TUN hands each
// packet to its direction's policy with its arrival time and queues the
// verdict; one writer goroutine sleeps until the earliest delivery time
// and writes due packets to their TUN. Close stops both, closes the TUN
// devices and deletes the namespaces. Processes started with Command must
// be ended by the caller before Close.
//
// Building one needs Linux, root, the ip binary and /dev/net/tun;
// WANAvailable says whether they are there. Methods are safe for
// concurrent use.
type WAN struct {
	ns      *NetnsPair // the namespaces (no veth: the TUNs join them)
	tunName [2]string
	tun     [2]*os.File
	seed    uint64

	wake chan struct{} // a packet was queued: the writer re-arms its timer
	done chan struct{} // closed by Close
	wg   sync.WaitGroup

	mu struct {
		sync.Mutex
		policy     [2]*wanPolicy
		queue      wanQueue
		seq        uint64
		stats      [2]WANDirStats
		err        error // the first reader or writer failure
		closed     bool
		registered [2]bool // dialNetwork registered side's network
	}
}

// WANOptions configures NewWAN.
type WANOptions struct {
	// AtoB is the impairment of packets from side 0 to side 1, BtoA of
	// the reverse. Default: none.
	AtoB, BtoA Impairment
	// Seed seeds the impairments' generators (direction d uses Seed+d),
	// so a run's drops can be replayed. Default 0: a random seed, which
	// Seed() reports.
	Seed uint64
	// MTU of the TUN devices. Default 1500.
	MTU int
}

// WANDir is a direction across a WAN, named by the side packets come
// from.
type WANDir int

const (
	AtoB WANDir = 0 // from side 0 to side 1
	BtoA WANDir = 1 // from side 1 to side 0
)

// WANDirStats counts one direction's packets.
type WANDirStats struct {
	Received       int64 // packets read from the source side's TUN
	ReceivedBytes  int64
	Forwarded      int64 // packets written to the destination side's TUN
	ForwardedBytes int64
	DroppedQueue   int64 // tail-dropped at the bandwidth cap's full queue
	DroppedLoss    int64 // random loss
	DroppedBurst   int64 // Gilbert-Elliott loss
	Reordered      int64 // held back so later packets overtook them
	WriteErrors    int64 // packets the destination TUN refused
	InFlight       int   // accepted, not yet delivered
}

// So Received = Forwarded + WriteErrors + Dropped() + InFlight.

// Dropped is the number of packets the impairment dropped.
func (s WANDirStats) Dropped() int64 { return s.DroppedQueue + s.DroppedLoss + s.DroppedBurst }

const (
	// wanCloseTimeout bounds Close's wait for the forwarder's goroutines.
	wanCloseTimeout = 5 * time.Second
	// wanMaxPacket is the largest packet a TUN read returns.
	wanMaxPacket = 65535
)

// WANAvailable returns nil if NewWAN can work here, or an error saying
// what is missing (not Linux, not root, no ip binary, no /dev/net/tun).
func WANAvailable() error {
	if runtime.GOOS != "linux" {
		return fmt.Errorf("lab: a WAN needs Linux, not %s", runtime.GOOS)
	}
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root (euid is "+strconv.Itoa(os.Geteuid())+")")
	}
	if _, err := os.Stat(findTool("ip", "/usr/sbin/ip")); err != nil {
		missing = append(missing, "ip binary (Debian iproute2)")
	}
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		missing = append(missing, "/dev/net/tun (CONFIG_TUN)")
	}
	if len(missing) > 0 {
		return fmt.Errorf("lab: a WAN needs %s", strings.Join(missing, ", "))
	}
	return nil
}

// NewWAN builds the namespaces and TUN devices and starts forwarding.
// ctx bounds the setup; on failure nothing is left behind.
func NewWAN(ctx context.Context, opts WANOptions) (*WAN, error) {
	return newWAN(ctx, opts, nil)
}

// newWAN is NewWAN; failStep, if set, is run as an extra ip command after
// the devices are configured, so tests can check the cleanup after a
// failure.
func newWAN(ctx context.Context, opts WANOptions, failStep []string) (*WAN, error) {
	if err := WANAvailable(); err != nil {
		return nil, err
	}
	var imps [2]Impairment
	for d, imp := range []Impairment{opts.AtoB, opts.BtoA} {
		var err error
		if imps[d], err = imp.withDefaults(); err != nil {
			return nil, err
		}
	}
	if opts.MTU == 0 {
		opts.MTU = 1500
	}
	if opts.MTU < 576 || opts.MTU > wanMaxPacket {
		return nil, fmt.Errorf("lab: wan MTU %d is not within 576-%d", opts.MTU, wanMaxPacket)
	}
	token := make([]byte, 11)
	if _, err := rand.Read(token); err != nil {
		return nil, fmt.Errorf("lab: wan: %w", err)
	}
	id := hex.EncodeToString(token[:3])
	if opts.Seed == 0 {
		opts.Seed = binary.LittleEndian.Uint64(token[3:]) | 1
	}
	subnet := "10.214." + strconv.Itoa(int(token[0])) + "."
	w := &WAN{
		ns: &NetnsPair{
			id:  id,
			ns:  [2]string{fmt.Sprintf("ptw%d-%s-0", os.Getpid(), id), fmt.Sprintf("ptw%d-%s-1", os.Getpid(), id)},
			ip:  [2]string{subnet + "1", subnet + "2"},
			ipc: findTool("ip", "/usr/sbin/ip"),
		},
		// Interface names are limited to 15 bytes: "ptw" + 6 hex + side.
		tunName: [2]string{"ptw" + id + "a", "ptw" + id + "b"},
		seed:    opts.Seed,
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	for d := range imps {
		w.mu.policy[d] = newWANPolicy(imps[d], opts.Seed+uint64(d))
	}
	fail := func(err error) (*WAN, error) {
		for _, f := range w.tun {
			if f != nil {
				f.Close()
			}
		}
		return nil, errors.Join(err, w.ns.Close())
	}
	p := w.ns
	for _, ns := range p.ns {
		if _, err := p.run(ctx, "", p.ipc, "netns", "add", ns); err != nil {
			return fail(err)
		}
		p.mu.Lock()
		p.mu.created = append(p.mu.created, ns)
		p.mu.Unlock()
	}
	for side := range w.tun {
		err := p.Do(side, func() error {
			var err error
			w.tun[side], err = openTUN(w.tunName[side])
			return err
		})
		if err != nil {
			return fail(err)
		}
		for _, s := range [][]string{
			// No IPv6 link-local address: only the tests' traffic crosses.
			{"-n", p.ns[side], "link", "set", w.tunName[side], "addrgenmode", "none"},
			// A deep ring, so a burst the reader is slow to take
			// waits rather than being dropped (1000 lost packets to
			// BBR bursts at 100 ms RTT); see KernelDrops.
			{"-n", p.ns[side], "link", "set", w.tunName[side], "mtu", strconv.Itoa(opts.MTU), "txqueuelen", "10000"},
			{"-n", p.ns[side], "addr", "add", p.ip[side] + "/24", "dev", w.tunName[side]},
			{"-n", p.ns[side], "link", "set", w.tunName[side], "up"},
			{"-n", p.ns[side], "link", "set", "lo", "up"},
		} {
			if _, err := p.run(ctx, "", p.ipc, s...); err != nil {
				return fail(err)
			}
		}
	}
	if failStep != nil {
		if _, err := p.run(ctx, "", p.ipc, failStep...); err != nil {
			return fail(err)
		}
	}
	w.wg.Add(3)
	go w.read(0)
	go w.read(1)
	go w.write()
	return w, nil
}

// Seed is the seed the impairments' generators started from.
func (w *WAN) Seed() uint64 { return w.seed }

// Name is the namespace name of side 0 or 1 (for `ip netns exec`). Like
// every method taking a side, it panics on any other side.
func (w *WAN) Name(side int) string { return w.ns.Name(side) }

// IP is the address of side 0 or 1, e.g. "10.214.7.1".
func (w *WAN) IP(side int) string { return w.ns.IP(side) }

// Interface is the TUN device of side 0 or 1.
func (w *WAN) Interface(side int) string { return w.tunName[side] }

// Command returns an exec.Cmd running name with args inside side's
// namespace (through `ip netns exec`), killed when ctx is done.
func (w *WAN) Command(ctx context.Context, side int, name string, args ...string) *exec.Cmd {
	return w.ns.Command(ctx, side, name, args...)
}

// Run runs name with args inside side's namespace, bounded by ctx and
// netnsCmdTimeout, and returns its stdout; the error includes stderr.
func (w *WAN) Run(ctx context.Context, side int, name string, args ...string) (string, error) {
	return w.ns.Run(ctx, side, name, args...)
}

// Do runs fn on an OS thread inside side's namespace (see NetnsPair.Do).
func (w *WAN) Do(side int, fn func() error) error { return w.ns.Do(side, fn) }

// Listen is net.Listen inside side's namespace.
func (w *WAN) Listen(side int, network, address string) (net.Listener, error) {
	return w.ns.Listen(side, network, address)
}

// Dial is net.Dialer.DialContext from inside side's namespace; address
// must be an IP literal and port.
func (w *WAN) Dial(ctx context.Context, side int, network, address string) (net.Conn, error) {
	return w.ns.Dial(ctx, side, network, address)
}

// dialNetwork returns the go-sql-driver network name (registered on first
// use with mysql.RegisterDialContext) that dials from inside side's
// namespace, so a *sql.DB in this process can reach servers there.
func (w *WAN) dialNetwork(side int) string {
	name := "lab-wan-" + w.Name(side)
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.mu.registered[side] {
		w.mu.registered[side] = true
		mysql.RegisterDialContext(name, func(ctx context.Context, addr string) (net.Conn, error) {
			return w.Dial(ctx, side, "tcp", addr)
		})
	}
	return name
}

// SetImpairment changes direction dir's impairment for packets arriving
// from now on; packets already accepted keep their delivery times, and
// the bandwidth queue carries on.
func (w *WAN) SetImpairment(dir WANDir, imp Impairment) error {
	imp, err := imp.withDefaults()
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.mu.policy[dir].set(imp)
	return nil
}

// Stats returns the counters of both directions, indexed by WANDir.
func (w *WAN) Stats() [2]WANDirStats {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.mu.stats
}

// KernelDrops returns, per direction, the packets the kernels dropped
// outside the emulator's decisions: the source TUN's tx_dropped (its
// ring, txqueuelen 10000 packets, was full because the forwarder fell
// behind a burst) plus the destination TUN's rx_dropped. Benchmarks check
// it is 0, so every loss TCP saw was the Impairment's.
func (w *WAN) KernelDrops() ([2]int64, error) {
	var tx, rx [2]int64
	for side := range w.tun {
		err := w.Do(side, func() error {
			// thread-self: the file of the thread's network namespace.
			b, err := os.ReadFile("/proc/thread-self/net/dev")
			if err != nil {
				return err
			}
			for _, line := range strings.Split(string(b), "\n") {
				name, counters, ok := strings.Cut(line, ":")
				if !ok || strings.TrimSpace(name) != w.tunName[side] {
					continue
				}
				f := strings.Fields(counters)
				if len(f) < 12 {
					return fmt.Errorf("lab: wan: short /proc/net/dev line %q", line)
				}
				rx[side], err = strconv.ParseInt(f[3], 10, 64)
				if err == nil {
					tx[side], err = strconv.ParseInt(f[11], 10, 64)
				}
				return err
			}
			return fmt.Errorf("lab: wan: %s not in /proc/net/dev", w.tunName[side])
		})
		if err != nil {
			return [2]int64{}, fmt.Errorf("lab: wan: kernel drops: %w", err)
		}
	}
	return [2]int64{tx[0] + rx[1], tx[1] + rx[0]}, nil
}

// Close stops the forwarder (packets in flight are lost), closes the TUN
// devices and deletes the namespaces. It waits up to wanCloseTimeout for
// the forwarder's goroutines, and returns the first forwarding failure,
// if any. It is idempotent.
func (w *WAN) Close() error {
	w.mu.Lock()
	already := w.mu.closed
	w.mu.closed = true
	w.mu.Unlock()
	var errs []error
	if !already {
		close(w.done)
		for _, f := range w.tun {
			f.Close() // ends the readers' blocked Read
		}
		stopped := make(chan struct{})
		go func() { w.wg.Wait(); close(stopped) }()
		select {
		case <-stopped:
		case <-time.After(wanCloseTimeout):
			errs = append(errs, fmt.Errorf("lab: wan: forwarder still running %v after Close", wanCloseTimeout))
		}
		w.mu.Lock()
		errs = append(errs, w.mu.err)
		w.mu.queue = nil
		w.mu.Unlock()
	}
	errs = append(errs, w.ns.Close())
	return errors.Join(errs...)
}

// fail records the forwarder's first failure for Close.
func (w *WAN) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.mu.err == nil && !w.mu.closed {
		w.mu.err = err
	}
}

// read forwards side's packets into the delay line until Close.
func (w *WAN) read(side int) {
	defer w.wg.Done()
	buf := make([]byte, wanMaxPacket)
	for {
		n, err := w.tun[side].Read(buf)
		if err != nil {
			select {
			case <-w.done:
			default:
				w.fail(fmt.Errorf("lab: wan: read %s: %w", w.tunName[side], err))
			}
			return
		}
		if n == 0 {
			continue
		}
		now := time.Now()
		w.mu.Lock()
		st := &w.mu.stats[side]
		st.Received++
		st.ReceivedBytes += int64(n)
		v := w.mu.policy[side].arrive(now, n)
		switch v.Drop {
		case wanDropQueue:
			st.DroppedQueue++
		case wanDropLoss:
			st.DroppedLoss++
		case wanDropBurst:
			st.DroppedBurst++
		default:
			if v.Reordered {
				st.Reordered++
			}
			st.InFlight++
			w.mu.seq++
			heap.Push(&w.mu.queue, wanItem{at: v.At, seq: w.mu.seq, dir: WANDir(side), pkt: append([]byte(nil), buf[:n]...)})
		}
		w.mu.Unlock()
		if v.Drop == wanDelivered {
			select {
			case w.wake <- struct{}{}:
			default:
			}
		}
	}
}

// write delivers queued packets at their times until Close.
func (w *WAN) write() {
	defer w.wg.Done()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var due []wanItem
	for {
		due = due[:0]
		w.mu.Lock()
		now := time.Now()
		for len(w.mu.queue) > 0 && !w.mu.queue[0].at.After(now) {
			due = append(due, heap.Pop(&w.mu.queue).(wanItem))
		}
		next := time.Hour
		if len(w.mu.queue) > 0 {
			next = w.mu.queue[0].at.Sub(now)
		}
		w.mu.Unlock()
		if len(due) > 0 {
			var written [2]struct{ n, bytes, errs int64 }
			for _, it := range due {
				if _, err := w.tun[1-it.dir].Write(it.pkt); err != nil {
					// A full or downed device drops the packet, as a
					// line would; Close ends the loop below.
					written[it.dir].errs++
					continue
				}
				written[it.dir].n++
				written[it.dir].bytes += int64(len(it.pkt))
			}
			w.mu.Lock()
			for d := range written {
				w.mu.stats[d].Forwarded += written[d].n
				w.mu.stats[d].ForwardedBytes += written[d].bytes
				w.mu.stats[d].WriteErrors += written[d].errs
				w.mu.stats[d].InFlight -= int(written[d].n + written[d].errs)
			}
			w.mu.Unlock()
			continue // more may have become due while writing
		}
		timer.Reset(next)
		select {
		case <-w.done:
			return
		case <-w.wake:
			timer.Stop()
		case <-timer.C:
		}
	}
}

// wanItem is a packet waiting for its delivery time.
type wanItem struct {
	at  time.Time
	seq uint64 // arrival order, to keep equal times in order
	dir WANDir
	pkt []byte
}

// wanQueue is a min-heap of packets by delivery time, then arrival.
type wanQueue []wanItem

func (q wanQueue) Len() int { return len(q) }
func (q wanQueue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].seq < q[j].seq
}
func (q wanQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *wanQueue) Push(x any)   { *q = append(*q, x.(wanItem)) }
func (q *wanQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	old[len(old)-1] = wanItem{}
	*q = old[:len(old)-1]
	return it
}
