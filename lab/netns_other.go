//go:build !linux

package lab

import "errors"

// Do needs Linux; NetnsAvailable reports it and NewNetnsPair fails first.
func (p *NetnsPair) Do(side int, fn func() error) error {
	return errors.New("lab: network namespaces need Linux")
}
