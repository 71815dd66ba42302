package failpoint

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
)

// EnvVar names the environment variable through which a test arms points
// in a server process it starts (cmd/petrel reads it; the server logs a
// warning when it is set).
const EnvVar = "PETREL_FAILPOINTS"

// EnableSpec arms the points a spec lists, for tests driving a real
// process: "name=action[;name=action...]" where action is
//
//	block     every hit blocks forever (a disk that stopped answering)
//	block@N   hits before the Nth pass, the Nth and later block
//	error     every hit returns an error
//	error@N   hits before the Nth pass, the Nth and later return an error
//
// It returns the names armed.
func EnableSpec(spec string) ([]string, error) {
	var names []string
	for _, item := range strings.Split(spec, ";") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, action, ok := strings.Cut(item, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("failpoint: %q is not name=action", item)
		}
		kind, nth, hasN := strings.Cut(action, "@")
		from := int64(1)
		if hasN {
			n, err := strconv.ParseInt(nth, 10, 64)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("failpoint: %q: the hit number must be 1 or more", item)
			}
			from = n
		}
		var fire func() error
		switch kind {
		case "block":
			fire = func() error { select {} }
		case "error":
			err := errors.New("failpoint: " + name)
			fire = func() error { return err }
		default:
			return nil, fmt.Errorf("failpoint: %q: unknown action %q (block, error)", item, kind)
		}
		var hits atomic.Int64
		Enable(name, func() error {
			if hits.Add(1) < from {
				return nil
			}
			return fire()
		})
		names = append(names, name)
	}
	return names, nil
}
