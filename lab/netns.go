package lab

import (
	"bytes"
	"context"
	"crypto/rand"
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
)

// A NetnsPair is two Linux network namespaces joined by a veth pair, with
// real packet loss from nftables: the one fault a userspace Link cannot
// give, since TCP above it never loses a segment. Side 0 has address
// IP(0) = 10.213.N.1/24 and side 1 has IP(1) = 10.213.N.2/24 (N random),
// and each side's loopback is up. Building one needs root and the ip and
// nft binaries (Debian iproute2 and nftables); NetnsAvailable says whether
// they are there.
//
// Names start with "ptl" and carry the pid and a random token, so pairs of
// parallel tests and test binaries never collide. Close deletes both
// namespaces, which destroys the veth pair and the nftables tables with
// them; NewNetnsPair does the same when a step fails. Processes started
// with Command must be ended by the caller before Close: a namespace with
// a process in it outlives its name.
//
// Every ip and nft invocation is bounded by netnsCmdTimeout and by the
// caller's context. Methods are safe for concurrent use.
type NetnsPair struct {
	id   string
	ns   [2]string
	veth [2]string
	ip   [2]string
	ipc  string // path of ip
	nft  string // path of nft

	mu struct {
		sync.Mutex
		created []string // namespaces that exist and Close must delete
	}
}

const (
	// netnsCmdTimeout bounds each ip or nft invocation.
	netnsCmdTimeout = 10 * time.Second
	// netnsLossTable is the nftables table SetLoss manages.
	netnsLossTable = "ptl_loss"
)

// NetnsAvailable returns nil if NewNetnsPair can work here, or an error
// saying what is missing (not Linux, not root, no ip or nft binary).
func NetnsAvailable() error {
	if runtime.GOOS != "linux" {
		return fmt.Errorf("lab: network namespaces need Linux, not %s", runtime.GOOS)
	}
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root (euid is "+strconv.Itoa(os.Geteuid())+")")
	}
	for _, tool := range [][2]string{{"ip", "/usr/sbin/ip"}, {"nft", "/usr/sbin/nft"}} {
		if _, err := os.Stat(findTool(tool[0], tool[1])); err != nil {
			missing = append(missing, tool[0]+" binary (Debian "+map[string]string{"ip": "iproute2", "nft": "nftables"}[tool[0]]+")")
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("lab: network namespaces need %s", strings.Join(missing, ", "))
	}
	return nil
}

// NewNetnsPair creates the two namespaces and the veth pair between them,
// with no loss. ctx bounds the setup.
func NewNetnsPair(ctx context.Context) (*NetnsPair, error) {
	token := make([]byte, 3)
	if _, err := rand.Read(token); err != nil {
		return nil, fmt.Errorf("lab: netns name: %w", err)
	}
	return newNetnsPair(ctx, hex.EncodeToString(token), nil)
}

// newNetnsPair builds a pair named after id. failStep, if set, is run as
// an extra ip command after the others, so tests can check the cleanup
// after a failure.
func newNetnsPair(ctx context.Context, id string, failStep []string) (*NetnsPair, error) {
	if err := NetnsAvailable(); err != nil {
		return nil, err
	}
	// Interface names are limited to 15 bytes: "ptl" + 6 hex + side.
	subnet := "10.213." + strconv.Itoa(int(hexByte(id))) + "."
	p := &NetnsPair{
		id:   id,
		ns:   [2]string{fmt.Sprintf("ptl%d-%s-0", os.Getpid(), id), fmt.Sprintf("ptl%d-%s-1", os.Getpid(), id)},
		veth: [2]string{"ptl" + id + "a", "ptl" + id + "b"},
		ip:   [2]string{subnet + "1", subnet + "2"},
		ipc:  findTool("ip", "/usr/sbin/ip"),
		nft:  findTool("nft", "/usr/sbin/nft"),
	}
	fail := func(err error) (*NetnsPair, error) {
		return nil, errors.Join(err, p.Close())
	}
	for _, ns := range p.ns {
		if _, err := p.run(ctx, "", p.ipc, "netns", "add", ns); err != nil {
			return fail(err)
		}
		p.mu.Lock()
		p.mu.created = append(p.mu.created, ns)
		p.mu.Unlock()
	}
	// Created inside the namespaces directly, so no veth end ever sits in
	// the root namespace where a failure could strand it.
	steps := [][]string{{"link", "add", p.veth[0], "netns", p.ns[0], "type", "veth", "peer", "name", p.veth[1], "netns", p.ns[1]}}
	for i := range p.ns {
		steps = append(steps,
			[]string{"-n", p.ns[i], "addr", "add", p.ip[i] + "/24", "dev", p.veth[i]},
			[]string{"-n", p.ns[i], "link", "set", p.veth[i], "up"},
			[]string{"-n", p.ns[i], "link", "set", "lo", "up"},
		)
	}
	if failStep != nil {
		steps = append(steps, failStep)
	}
	for _, s := range steps {
		if _, err := p.run(ctx, "", p.ipc, s...); err != nil {
			return fail(err)
		}
	}
	return p, nil
}

func hexByte(id string) byte {
	b, err := hex.DecodeString(id)
	if err != nil || len(b) == 0 {
		return 0
	}
	return b[0]
}

// Name is the namespace name of side 0 or 1 (for `ip netns exec`). Like
// every method taking a side, it panics on any other side.
func (p *NetnsPair) Name(side int) string { return p.ns[side] }

// IP is the address of side 0 or 1 on the veth link, e.g. "10.213.7.1".
func (p *NetnsPair) IP(side int) string { return p.ip[side] }

// Interface is the veth interface name of side 0 or 1.
func (p *NetnsPair) Interface(side int) string { return p.veth[side] }

// Command returns an exec.Cmd running name with args inside side's
// namespace (through `ip netns exec`), killed when ctx is done.
func (p *NetnsPair) Command(ctx context.Context, side int, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, p.ipc, append([]string{"netns", "exec", p.Name(side), name}, args...)...)
	cmd.WaitDelay = waitDelay
	return cmd
}

// Run runs name with args inside side's namespace, bounded by ctx and
// netnsCmdTimeout, and returns its stdout; the error includes stderr.
func (p *NetnsPair) Run(ctx context.Context, side int, name string, args ...string) (string, error) {
	return p.run(ctx, "", p.ipc, append([]string{"netns", "exec", p.Name(side), name}, args...)...)
}

// SetLoss makes each packet crossing the veth link, in either direction,
// be dropped with probability percent/100 (0 removes the loss, so a round
// trip survives with probability (1-percent/100)^2). Each namespace gets
// an nftables table whose input chain drops `numgen random mod 100 <
// percent` of the packets arriving on its veth end. Dropping on arrival,
// rather than in the sender's output hook, keeps the sender's stack
// unaware, as with loss on a wire: an output-hook drop returns EPERM to a
// UDP sender and a local send error to TCP instead of a lost segment.
func (p *NetnsPair) SetLoss(ctx context.Context, percent int) error {
	if percent < 0 || percent > 100 {
		return fmt.Errorf("lab: netns loss %d%% is not within 0-100", percent)
	}
	for i := range p.ns {
		// Declaring then deleting the table makes the script work
		// whether or not it exists; nft applies the file atomically.
		script := fmt.Sprintf("table inet %[1]s\ndelete table inet %[1]s\n", netnsLossTable)
		if percent > 0 {
			script += fmt.Sprintf("table inet %s {\n"+
				"\tchain input {\n"+
				"\t\ttype filter hook input priority raw; policy accept;\n"+
				"\t\tiifname %q numgen random mod 100 < %d drop\n"+
				"\t}\n"+
				"}\n", netnsLossTable, p.veth[i], percent)
		}
		if _, err := p.run(ctx, script, p.ipc, "netns", "exec", p.ns[i], p.nft, "-f", "-"); err != nil {
			return err
		}
	}
	return nil
}

// Close deletes both namespaces (and so the veth pair and the loss
// tables). It is idempotent; a failure to delete one namespace does not
// stop the other being deleted.
func (p *NetnsPair) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	var left []string
	for _, ns := range p.mu.created {
		if _, err := p.run(context.Background(), "", p.ipc, "netns", "delete", ns); err != nil {
			errs = append(errs, err)
			left = append(left, ns)
		}
	}
	p.mu.created = left
	return errors.Join(errs...)
}

// run runs one ip or nft command with stdin, bounded by ctx and
// netnsCmdTimeout.
func (p *NetnsPair) run(ctx context.Context, stdin, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, netnsCmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	cmd.WaitDelay = waitDelay
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", err, ctx.Err())
		}
		return stdout.String(), fmt.Errorf("lab: netns: %s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// Listen is net.Listen inside side's namespace.
func (p *NetnsPair) Listen(side int, network, address string) (net.Listener, error) {
	var l net.Listener
	err := p.Do(side, func() error {
		var err error
		l, err = net.Listen(network, address)
		return err
	})
	return l, err
}

// ListenPacket is net.ListenPacket inside side's namespace.
func (p *NetnsPair) ListenPacket(side int, network, address string) (net.PacketConn, error) {
	var c net.PacketConn
	err := p.Do(side, func() error {
		var err error
		c, err = net.ListenPacket(network, address)
		return err
	})
	return c, err
}

// Dial is net.Dialer.DialContext from inside side's namespace. address
// must be an IP literal and port: name resolution may run on another
// thread, outside the namespace.
func (p *NetnsPair) Dial(ctx context.Context, side int, network, address string) (net.Conn, error) {
	var c net.Conn
	err := p.Do(side, func() error {
		var d net.Dialer
		var err error
		c, err = d.DialContext(ctx, network, address)
		return err
	})
	return c, err
}
