// Package lab runs real database servers as subprocesses for end-to-end
// tests and benchmark tools: Petrel itself (StartPetrel), a MariaDB 10.11
// anchor from Debian (StartMariaDB), the mariadb CLI (RunMariaDBClient) and
// sysbench (RunSysbench). For replication tests it also injects network
// faults: Link, a userspace TCP proxy with latency, black holes, cuts,
// resets and outages, and NetnsPair, two network namespaces joined by a
// veth pair with real packet loss from nftables (root only), and WAN, two
// namespaces joined through TUN devices by a packet-level forwarder that
// delays, drops (randomly and in bursts), reorders and caps bandwidth per
// direction, so both ends' kernel TCP stacks feel the line (root only).
//
// Contract:
//   - Every wait is bounded. Start waits at most StartTimeout for a ping to
//     succeed; Stop sends SIGTERM, waits at most StopTimeout (or the context
//     deadline, whichever is first), then SIGKILLs and reaps the process.
//   - The context given to Start bounds startup only; the server outlives it
//     and runs until Stop or Kill.
//   - Servers listen on 127.0.0.1 only, and on Linux they get SIGKILL when
//     the process that started them dies, so a crashed or timed-out test
//     binary does not leave servers holding ports.
//   - Each server's combined stdout and stderr are kept in a bounded buffer
//     (the last 64 KiB, across restarts) that Log returns, so a failing test
//     can print it.
//
// Also: free loopback ports (FreePort, FreePortRun); an fsync delay
// library (fsyncdelay.go: a small shared library preloaded with
// LD_PRELOAD) that gives MariaDB the disk latency petrel_storage_sync_delay
// gives Petrel; Petrel and sysbench run inside a WAN side
// (PetrelOptions.WAN/Side, SysbenchOptions.WAN/Side; docs/design/wan.md).
//
// The package has no global state apart from the per-process cache of the
// built petrel binary (BuildPetrel).
package lab
