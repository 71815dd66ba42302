// Package labrun is the lab's experiment runner behind `petrel-lab`
// (`petrel lab`): the experiment registry (registry.go, the exp_*.go
// files), one harness for a primary and replicas of Petrel or MariaDB,
// connected directly, through a lab.Link or across a lab.WAN (cluster.go),
// interleaved rounds, end-state row checksums, and the report (HTML with
// inline SVG, Markdown, CSV, JSON) rendered from the run's samples alone
// (TestReportGolden). RunSweep is `petrel-lab sysbench`: sysbench's OLTP
// workloads over servers, or Petrel builds, side by side, with paired
// ratios.
//
// It drives processes through package lab and imports no server package;
// cmd/petrel-lab is its binary, kept apart from petrel so the server
// carries none of the lab. docs/LAB.md describes the experiments.
package labrun
