//go:build !linux

package lab

import (
	"errors"
	"os"
)

// openTUN needs Linux; WANAvailable reports it and NewWAN fails first.
func openTUN(name string) (*os.File, error) {
	return nil, errors.New("lab: a WAN needs Linux")
}
