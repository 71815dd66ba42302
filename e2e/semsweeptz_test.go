package e2e

// semSweepTZ: TIMESTAMP columns and the session's time_zone (sqlengine/
// tszone.go). MySQL stores a TIMESTAMP as UTC, written through the
// writer's zone and read in the reader's; Petrel kept the wall-clock
// value written and read it back unchanged in every zone. Offsets only:
// a fresh MariaDB has no named zones loaded. Ends at SYSTEM (the host's
// zone), where the rest of the corpus runs.
func semSweepTZ(add func(mode, q string), quiet func(q string)) {
	quiet("CREATE TABLE t_swtz (id INT PRIMARY KEY, ts TIMESTAMP NULL, dt DATETIME NULL, KEY k_ts (ts))")
	quiet("CREATE TABLE t_swtd (id INT PRIMARY KEY, ts TIMESTAMP(2) NULL DEFAULT CURRENT_TIMESTAMP(2), dt DATETIME(2) DEFAULT CURRENT_TIMESTAMP(2))")
	quiet("SET time_zone = '+00:00'")
	add("strict", "INSERT INTO t_swtz VALUES (1, '2020-06-01 12:00:00', '2020-06-01 12:00:00')")
	quiet("SET time_zone = '+05:30'")
	add("strict", "SELECT id, ts, dt, UNIX_TIMESTAMP(ts), UNIX_TIMESTAMP(dt) FROM t_swtz")
	add("strict", "INSERT INTO t_swtz VALUES (2, '2020-06-01 12:00:00', '2020-06-01 12:00:00'), (3, NOW(), NOW())")
	add("strict", "INSERT INTO t_swtd (id) VALUES (1)")
	add("strict", "SELECT id FROM t_swtz WHERE ts = '2020-06-01 17:30:00'")
	add("strict", "SELECT id FROM t_swtz WHERE ts > '2020-06-01 12:00:00' AND ts < '2021-01-01' ORDER BY id")
	add("strict", "SELECT id FROM t_swtz IGNORE INDEX (k_ts) WHERE ts >= '2020-06-01 12:00:00' AND ts < '2021-01-01' ORDER BY id")
	add("strict", "SELECT id, ts FROM t_swtz WHERE ts IN ('2020-06-01 12:00:00', '2020-06-01 17:30:00') ORDER BY ts")
	add("strict", "UPDATE t_swtz SET ts = ts + INTERVAL 1 HOUR WHERE id = 2")
	add("strict", "SELECT id, ts, TIMESTAMPDIFF(MINUTE, ts, dt) FROM t_swtz WHERE id <> 3 ORDER BY ts")
	add("strict", "SELECT MIN(ts), MAX(ts) < NOW() + INTERVAL 1 DAY, DATE(MIN(ts)), HOUR(MIN(ts)) FROM t_swtz")
	add("strict", "INSERT INTO t_swtz VALUES (4, '1970-01-01 03:00:00', NULL)")
	add("strict", "INSERT INTO t_swtz VALUES (1, '2021-01-01 00:00:00', NULL) ON DUPLICATE KEY UPDATE ts = VALUES(ts)")
	quiet("SET time_zone = '-08:00'")
	add("strict", "SELECT id, ts, UNIX_TIMESTAMP(ts) FROM t_swtz WHERE id <> 3 ORDER BY id")
	add("strict", "SELECT TIMESTAMPDIFF(MINUTE, ts, dt) FROM t_swtd")
	add("strict", "DELETE FROM t_swtz WHERE ts = '2020-05-31 23:30:00'")
	add("strict", "SELECT id FROM t_swtz ORDER BY id")
	quiet("SET time_zone = 'SYSTEM'")
	add("strict", "SELECT id, ts, TIMESTAMPDIFF(MINUTE, ts, dt) FROM t_swtz WHERE id <> 3 ORDER BY id")
	add("strict", "SELECT TIMESTAMPDIFF(MINUTE, ts, dt) FROM t_swtz WHERE id = 3")
}
