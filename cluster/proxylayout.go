package cluster

import (
	"encoding/json"
	"path/filepath"
	"strconv"

	"petrel/internal/fsutil"
)

// The proxies' layout file (`petrel proxy --layout`): the primary and
// every replica with its site, as proxy.Layout reads it. Written at
// start; a change of primary rewrites it, and the proxies follow.

type proxyLayout struct {
	Primary  string         `json:"primary"`
	Replicas []proxyReplica `json:"replicas"`
}

type proxyReplica struct {
	Addr string `json:"addr"`
	Site int    `json:"site"`
}

func proxyLayoutPath(dir string) string { return filepath.Join(dir, "proxy-layout.json") }

// WriteProxyLayout replaces dir's proxy layout file whole with nodes'
// primary and replicas (a proxy never reads half of it).
func WriteProxyLayout(dir string, nodes []Node) error {
	var l proxyLayout
	for _, n := range nodes {
		addr := "127.0.0.1:" + strconv.Itoa(n.Port)
		switch n.Role {
		case RolePrimary:
			l.Primary = addr
		case RoleReplica:
			l.Replicas = append(l.Replicas, proxyReplica{Addr: addr, Site: n.Site})
		}
	}
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(proxyLayoutPath(dir), append(b, '\n'), 0o640)
}
