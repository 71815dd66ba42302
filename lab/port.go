package lab

import (
	"fmt"
	"math/rand/v2"
	"net"
)

// Ports for test servers are picked below Linux's ephemeral range
// (32768-60999 by default): a port the kernel handed out as free may be
// handed out again as the local port of an outgoing connection before the
// server binds it (or binds it again, when it restarts on the same port),
// which under a busy suite made a server's start fail now and then.
const (
	portLow  = 12000
	portHigh = 32000
)

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago,
// outside the ephemeral range. The port is released before returning, so
// another process may take it first; callers that start a server on it get
// a clear start error in that case.
func FreePort() (int, error) {
	for try := 0; try < 100; try++ {
		port := portLow + rand.IntN(portHigh-portLow)
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		if err := l.Close(); err != nil {
			return 0, fmt.Errorf("lab: free port: %w", err)
		}
		return port, nil
	}
	// Crowded: any port the kernel gives.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("lab: free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		return 0, fmt.Errorf("lab: free port: %w", err)
	}
	return port, nil
}

// FreePortRun returns the first of n consecutive ports on 127.0.0.1 that
// were free a moment ago, outside the ephemeral range (`petrel cluster`
// puts node i on base+i).
func FreePortRun(n int) (int, error) {
	for try := 0; try < 100; try++ {
		base := portLow + rand.IntN(portHigh-portLow-n)
		ok := true
		for i := 0; i < n && ok; i++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+i))
			if err != nil {
				ok = false
				break
			}
			ok = l.Close() == nil
		}
		if ok {
			return base, nil
		}
	}
	return 0, fmt.Errorf("lab: no run of %d free ports", n)
}
