#!/bin/bash
# Semi-sync oltp_write_only at 32 threads, two petrel builds A/B: each
# round starts `petrel cluster` (a primary and one semi-sync replica) from
# each build in turn (order alternating), prepares 4 x 10000 rows and runs
# 15 s; prints TPS, acknowledged commits and the primary's CPU per txn.
#   PREV=/tmp/petrel-prev NOW=/tmp/petrel-now ROUNDS=3 bench/semisync-ab.sh
set -u
out=${OUT:-/tmp/semisync-ab.txt}; : > $out
PREV=${PREV:?a petrel binary}; NOW=${NOW:?a petrel binary}; ROUNDS=${ROUNDS:-3}
for r in $(seq 1 $ROUNDS); do
  if [ $((r % 2)) -eq 1 ]; then order="prev now"; else order="now prev"; fi
  for b in $order; do
    d=$(mktemp -d /tmp/semisync-ab-XXXX); port=$((24000 + r*10))
    bin=$PREV; [ $b = now ] && bin=$NOW
    $bin cluster --datadir $d --base-port $port --replicas 1 --root-password pw > $d/cluster.log 2>&1 &
    cpid=$!
    for i in $(seq 1 100); do mariadb -h127.0.0.1 -P$port -uroot -ppw -e "SELECT 1" >/dev/null 2>&1 && break; sleep 0.3; done
    mariadb -h127.0.0.1 -P$port -uroot -ppw -e "CREATE DATABASE sbtest" 
    sb="sysbench oltp_write_only --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$port --mysql-user=root --mysql-password=pw --tables=4 --table-size=10000 --threads=32"
    $sb prepare >/dev/null 2>&1
    sleep 2
    ppid=$(pgrep -f -- "--port=$port" | head -1); [ -z "$ppid" ] && ppid=$(pgrep -f -- "--port $port" | head -1)
    c0=$(awk '{print $14+$15}' /proc/$ppid/stat 2>/dev/null)
    res=$($sb --time=15 --mysql-ignore-errors=1213 run 2>&1)
    c1=$(awk '{print $14+$15}' /proc/$ppid/stat 2>/dev/null)
    tps=$(echo "$res" | grep -oP 'transactions:\s+\d+\s+\(\K[0-9.]+')
    txns=$(echo "$res" | grep -oP 'transactions:\s+\K\d+')
    st=$(mariadb -h127.0.0.1 -P$port -uroot -ppw -N -e "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_source_yes_tx'" | awk '{print $2}')
    cpu=$(python3 -c "print(round(( ${c1:-0} - ${c0:-0} )*10.0/max(1,${txns:-1})*1000,1))")
    echo "round $r $b tps=$tps txns=$txns yes_tx=$st cpu_us_per_txn=$cpu pid=$ppid" | tee -a $out
    kill $cpid; wait $cpid 2>/dev/null
    rm -rf $d
  done
done
