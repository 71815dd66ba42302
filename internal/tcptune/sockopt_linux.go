//go:build linux

package tcptune

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

func setCongestion(raw syscall.RawConn, name string) error {
	return control(raw, func(fd uintptr) error {
		if err := unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, name); err != nil {
			return fmt.Errorf("setsockopt TCP_CONGESTION %s: %w", name, err)
		}
		return nil
	})
}

func congestion(raw syscall.RawConn) (string, error) {
	var name string
	err := control(raw, func(fd uintptr) error {
		v, err := unix.GetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION)
		name = v
		return err
	})
	return name, err
}
