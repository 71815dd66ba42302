//go:build !linux

package tcptune

import "syscall"

func setCongestion(syscall.RawConn, string) error { return errNoSockopt }

func congestion(syscall.RawConn) (string, error) { return "", errNoSockopt }
