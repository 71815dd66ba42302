package main

import (
	"fmt"
	"strconv"
	"strings"
)

// Applier configurations. A system may name one after a slash:
//
//	petrel/wN                 replica_parallel_workers = N (1 = the single applier)
//	petrel/dbN                replica_parallel_type = DATABASE, N workers
//	petrel/wN+mtM             and the replica started with
//	                          petrel_memtable_size = M MiB (an option file)
//	petrel/wN+co              and the primary's dependency tracking
//	                          COMMIT_ORDER (binlog_transaction_dependency_
//	                          tracking; the replica schedules on its
//	                          group-commit intervals)
//	mariadb/serial            slave_parallel_threads = 0
//	mariadb/MODE-N            slave_parallel_mode = MODE (optimistic,
//	                          conservative, aggressive, minimal),
//	                          slave_parallel_threads = N
//
// "petrel" and "mariadb" alone keep the servers' configured defaults
// (Petrel: 4 workers; MariaDB: defaultMariaDBReplicaArgs, 0 threads).
// The settings are made on the running replica (threads stopped, SET
// GLOBAL, started again) before the sysbench tables are loaded.

// splitSystem returns a system's server kind and applier configuration.
func splitSystem(s string) (base, variant string) {
	base, variant, _ = strings.Cut(s, "/")
	return base, variant
}

// variantSetup returns the statements that configure a replica's applier.
func variantSetup(system string) ([]string, error) {
	base, v := splitSystem(system)
	if v == "" {
		return nil, nil
	}
	bad := fmt.Errorf("unknown applier configuration %q for %s", v, base)
	switch base {
	case "petrel":
		v, _, _ = strings.Cut(v, "+") // the start-up part: replicaVariables
		typ := "LOGICAL_CLOCK"
		n := ""
		switch {
		case strings.HasPrefix(v, "w"):
			n = v[1:]
		case strings.HasPrefix(v, "db"):
			typ, n = "DATABASE", v[2:]
		default:
			return nil, bad
		}
		w, err := strconv.Atoi(n)
		if err != nil || w < 0 {
			return nil, bad
		}
		return []string{"STOP REPLICA SQL_THREAD",
			fmt.Sprintf("SET GLOBAL replica_parallel_workers = %d", w),
			fmt.Sprintf("SET GLOBAL replica_parallel_type = '%s'", typ),
			"START REPLICA SQL_THREAD"}, nil
	case "mariadb":
		if v == "serial" {
			return []string{"STOP SLAVE", "SET GLOBAL slave_parallel_threads = 0", "START SLAVE"}, nil
		}
		mode, n, ok := strings.Cut(v, "-")
		w, err := strconv.Atoi(n)
		if !ok || err != nil || w < 0 {
			return nil, bad
		}
		switch mode {
		case "optimistic", "conservative", "aggressive", "minimal", "none":
		default:
			return nil, bad
		}
		return []string{"STOP SLAVE",
			fmt.Sprintf("SET GLOBAL slave_parallel_mode = '%s'", mode),
			fmt.Sprintf("SET GLOBAL slave_parallel_threads = %d", w),
			"START SLAVE"}, nil
	}
	return nil, fmt.Errorf("unknown system %q (want petrel or mariadb)", base)
}

// replicaVariables returns the option-file settings a Petrel replica
// starts with for system (petrel/wN+mtM: petrel_memtable_size), or nil.
func replicaVariables(system string) (map[string]string, error) {
	base, v := splitSystem(system)
	_, rest, ok := strings.Cut(v, "+")
	if base != "petrel" || !ok {
		return nil, nil
	}
	vars := map[string]string{}
	for _, part := range strings.Split(rest, "+") {
		if part == "co" {
			continue // the primary's setting: primarySetup
		}
		mib, err := strconv.Atoi(strings.TrimPrefix(part, "mt"))
		if !strings.HasPrefix(part, "mt") || err != nil || mib < 1 || mib > 1024 {
			return nil, fmt.Errorf("unknown replica setting %q in %s (want mtN: petrel_memtable_size N MiB)", part, system)
		}
		vars["petrel_memtable_size"] = fmt.Sprintf("%dM", mib)
	}
	if len(vars) == 0 {
		return nil, nil
	}
	return vars, nil
}

// primarySetup returns the statements that configure a Petrel primary
// for system (petrel/...+co: COMMIT_ORDER dependency tracking), or nil.
func primarySetup(system string) []string {
	base, v := splitSystem(system)
	if base != "petrel" {
		return nil
	}
	_, rest, _ := strings.Cut(v, "+")
	for _, part := range strings.Split(rest, "+") {
		if part == "co" {
			return []string{"SET GLOBAL binlog_transaction_dependency_tracking = 'COMMIT_ORDER'"}
		}
	}
	return nil
}
