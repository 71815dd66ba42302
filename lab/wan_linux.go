package lab

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// openTUN creates TUN device name (IFF_TUN|IFF_NO_PI: bare IP packets) in
// the calling thread's network namespace and returns its file. The device
// lives as long as the file is open. The file is non-blocking, so the Go
// poller serves its reads and Close ends a blocked Read.
func openTUN(name string) (*os.File, error) {
	fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("lab: wan: open /dev/net/tun: %w", err)
	}
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("lab: wan: tun %s: %w", name, err)
	}
	ifr.SetUint16(unix.IFF_TUN | unix.IFF_NO_PI)
	if err := unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("lab: wan: TUNSETIFF %s: %w", name, err)
	}
	return os.NewFile(uintptr(fd), "/dev/net/tun:"+name), nil
}
