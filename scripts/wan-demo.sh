#!/usr/bin/env bash
# Bulk TCP across the lab's packet-level WAN emulator (lab.WAN: two network
# namespaces joined through TUN devices by a userspace forwarder), per loss
# rate and congestion control of the sending socket. Both kernels' TCP
# stacks see the delay, the loss and the bottleneck queue. Needs root and
# /dev/net/tun (no tc netem). Prints goodput (Mbit/s) and the sender's
# retransmissions per run.
#   bash scripts/wan-demo.sh
#   PETREL_WAN_LOSS=2 PETREL_WAN_DELAY=50ms PETREL_WAN_RATE=0 bash scripts/wan-demo.sh
# Variables (see BenchmarkWANCongestion in lab/wan_transfer_linux_test.go):
#   PETREL_WAN_LOSS     loss percentages, both directions (default 0,1,2,5)
#   PETREL_WAN_CC       congestion controls (default cubic,bbr)
#   PETREL_WAN_DELAY    one-way delay (default 50ms: 100 ms RTT)
#   PETREL_WAN_RATE     cap from sender to receiver (default 50mbit; 0: none)
#   PETREL_WAN_SECONDS  length of each transfer (default 10)
#   COUNT               runs per combination (default 1)
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT="${COUNT:-1}"
PETREL_LAB_STRICT=1 go test -count="$COUNT" -timeout 30m -run '^$' \
	-bench '^BenchmarkWANCongestion$' -benchtime 1x ./lab/ 2>&1 |
	grep -E '^(Benchmark|FAIL|ok|--- FAIL)|_test.go'
