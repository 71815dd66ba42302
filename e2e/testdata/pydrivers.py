"""Checks a Python MySQL driver against a server, with the driver's defaults.

Run by e2e TestPythonDrivers with Debian's /usr/bin/python3:

    pydrivers.py DRIVER HOST PORT USER PASSWORD

DRIVER is pymysql (python3-pymysql) or MySQLdb (python3-mysqldb, i.e.
mysqlclient). Prints one JSON object per check: {"check", "ok", "detail"}.
Every check asserts on values read back; an exception fails only its check.
"""

import datetime
import decimal
import json
import sys
import traceback

DRIVER, HOST, PORT, USER, PASSWORD = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
DB = "py_" + DRIVER.lower()

if DRIVER == "pymysql":
    import pymysql as drv
    import pymysql.cursors as cursors
elif DRIVER == "MySQLdb":
    import MySQLdb as drv
    import MySQLdb.cursors as cursors
else:
    sys.exit("unknown driver " + DRIVER)


def connect(db=DB, password=PASSWORD, **kw):
    """A connection with the driver's defaults (autocommit off in both)."""
    return drv.connect(host=HOST, port=PORT, user=USER, passwd=password, db=db,
                       charset="utf8mb4", **kw)


class CheckFailed(Exception):
    pass


def want(got, expected, what):
    if got != expected or type(got) is not type(expected):
        raise CheckFailed("%s: got %r (%s), want %r (%s)" % (what, got, type(got).__name__, expected, type(expected).__name__))


CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def query_one(conn, sql, args=None):
    cur = conn.cursor()
    cur.execute(sql, args)
    row = cur.fetchone()
    cur.close()
    return row


def admin():
    c = connect()
    c.autocommit(True)
    return c


@check
def autocommit_off_by_default():
    c = connect()
    try:
        want(c.get_autocommit(), False, "driver's autocommit")
        want(int(query_one(c, "SELECT @@autocommit")[0]), 0, "server's @@autocommit on the driver's connection")
    finally:
        c.close()


@check
def rollback_discards_insert():
    a = admin()
    a.cursor().execute("CREATE TABLE txn_rb (id INT PRIMARY KEY, v VARCHAR(10))")
    c = connect()
    try:
        cur = c.cursor()
        want(cur.execute("INSERT INTO txn_rb VALUES (1, 'x')"), 1, "rowcount")
        want(query_one(c, "SELECT COUNT(*) FROM txn_rb")[0], 1, "rows seen by the inserting transaction")
        want(query_one(a, "SELECT COUNT(*) FROM txn_rb")[0], 0, "rows another connection sees before commit")
        c.rollback()
        want(query_one(c, "SELECT COUNT(*) FROM txn_rb")[0], 0, "rows after rollback")
        want(query_one(a, "SELECT COUNT(*) FROM txn_rb")[0], 0, "rows another connection sees after rollback")
    finally:
        c.close()
        a.close()


@check
def commit_is_visible():
    a = admin()
    a.cursor().execute("CREATE TABLE txn_c (id INT PRIMARY KEY, v VARCHAR(10))")
    c = connect()
    try:
        c.cursor().execute("INSERT INTO txn_c VALUES (1, 'x'), (2, 'y')")
        c.commit()
        want(query_one(a, "SELECT COUNT(*), GROUP_CONCAT(v ORDER BY id) FROM txn_c"), (2, "x,y"), "another connection after commit")
    finally:
        c.close()
        a.close()


# Type round trips: (name, column type, value sent as a parameter, value
# expected back).
TYPES = [
    ("tinyint", "TINYINT", -128, -128),
    ("smallint_unsigned", "SMALLINT UNSIGNED", 65535, 65535),
    ("int", "INT", -2147483648, -2147483648),
    ("bigint", "BIGINT", -9223372036854775808, -9223372036854775808),
    ("bigint_unsigned_max", "BIGINT UNSIGNED", 18446744073709551615, 18446744073709551615),
    ("decimal", "DECIMAL(20,6)", decimal.Decimal("-12345678901234.123456"), decimal.Decimal("-12345678901234.123456")),
    ("float", "FLOAT", 1.5, 1.5),
    ("double", "DOUBLE", 1.0 / 3, 1.0 / 3),
    ("date", "DATE", datetime.date(2024, 2, 29), datetime.date(2024, 2, 29)),
    ("datetime6", "DATETIME(6)", datetime.datetime(2024, 2, 29, 13, 14, 15, 123456), datetime.datetime(2024, 2, 29, 13, 14, 15, 123456)),
    ("timestamp3", "TIMESTAMP(3) NULL", datetime.datetime(2024, 2, 29, 13, 14, 15, 123000), datetime.datetime(2024, 2, 29, 13, 14, 15, 123000)),
    ("time", "TIME", datetime.timedelta(hours=25, minutes=1, seconds=2), datetime.timedelta(hours=25, minutes=1, seconds=2)),
    # The drivers format a negative timedelta parameter wrongly and
    # mysqlclient drops a parameter's microseconds, whatever the server:
    # those two are sent as strings and read back as timedeltas.
    ("time_negative", "TIME", "-05:06:07", -datetime.timedelta(hours=5, minutes=6, seconds=7)),
    ("time6", "TIME(6)", "12:34:56.789012", datetime.timedelta(hours=12, minutes=34, seconds=56, microseconds=789012)),
    ("varchar_non_ascii", "VARCHAR(40)", "h\u00e9llo w\u00f6rld \u2713 \u65e5\u672c \U0001F600", "h\u00e9llo w\u00f6rld \u2713 \u65e5\u672c \U0001F600"),
    ("blob_bytes", "BLOB", bytes(range(256)), bytes(range(256))),
    ("null", "INT", None, None),
]


def type_check(name, coltype, value, expected):
    def run():
        a = admin()
        try:
            table = "rt_" + name
            a.cursor().execute("CREATE TABLE %s (id INT PRIMARY KEY, v %s)" % (table, coltype))
            a.cursor().execute("INSERT INTO %s VALUES (1, %%s)" % table, (value,))
            got = query_one(a, "SELECT v FROM %s WHERE id = 1" % table)[0]
            want(got, expected, coltype)
            # The value as a parameter in a WHERE finds the row it wrote.
            if value is not None and coltype not in ("FLOAT", "DOUBLE") and coltype.split("(")[0] != "TIME":
                want(query_one(a, "SELECT COUNT(*) FROM %s WHERE v = %%s" % table, (value,))[0], 1, "rows matching the value")
        finally:
            a.close()
    run.__name__ = "type_" + name
    return run


for t in TYPES:
    CHECKS.append(type_check(*t))


@check
def type_json():
    a = admin()
    try:
        a.cursor().execute("CREATE TABLE rt_json (id INT PRIMARY KEY, v JSON)")
        doc = {"a": [1, 2.5, "x\u00e9"], "b": None, "c": {"d": True}}
        a.cursor().execute("INSERT INTO rt_json VALUES (1, %s)", (json.dumps(doc),))
        got = query_one(a, "SELECT v FROM rt_json")[0]
        if isinstance(got, bytes):
            got = got.decode("utf-8")
        want(json.loads(got), doc, "JSON document")
        want(query_one(a, "SELECT JSON_EXTRACT(v, '$.a[1]') FROM rt_json")[0] in ("2.5", b"2.5"), True, "JSON_EXTRACT")
    finally:
        a.close()


def expect_error(cls, code, fn):
    try:
        fn()
    except cls as e:
        want(e.args[0], code, "error number of %s" % type(e).__name__)
        return
    except drv.Error as e:
        raise CheckFailed("got %s %r, want %s %d" % (type(e).__name__, e.args, cls.__name__, code))
    raise CheckFailed("no error, want %s %d" % (cls.__name__, code))


@check
def error_duplicate_key_is_integrity_error():
    a = admin()
    try:
        a.cursor().execute("CREATE TABLE err_dup (id INT PRIMARY KEY)")
        a.cursor().execute("INSERT INTO err_dup VALUES (1)")
        expect_error(drv.IntegrityError, 1062, lambda: a.cursor().execute("INSERT INTO err_dup VALUES (1)"))
        want(query_one(a, "SELECT COUNT(*) FROM err_dup")[0], 1, "rows after the failed insert")
    finally:
        a.close()


@check
def error_syntax_is_programming_error():
    a = admin()
    try:
        expect_error(drv.ProgrammingError, 1064, lambda: a.cursor().execute("SELEC 1"))
    finally:
        a.close()


@check
def error_no_table_is_programming_error():
    a = admin()
    try:
        expect_error(drv.ProgrammingError, 1146, lambda: a.cursor().execute("SELECT * FROM no_such_table"))
    finally:
        a.close()


@check
def error_bad_password_is_operational_error():
    expect_error(drv.OperationalError, 1045, lambda: connect(password="wrong-" + PASSWORD).close())


@check
def executemany_inserts_all_rows():
    a = admin()
    c = connect()
    try:
        a.cursor().execute("CREATE TABLE many (id INT PRIMARY KEY, v VARCHAR(20))")
        cur = c.cursor()
        n = cur.executemany("INSERT INTO many (id, v) VALUES (%s, %s)", [(i, "v%d" % i) for i in range(1, 501)])
        want(n, 500, "executemany rowcount")
        c.commit()
        want(query_one(a, "SELECT COUNT(*), SUM(id), MAX(v) FROM many"), (500, decimal.Decimal(125250), "v99"), "rows written")
        n = cur.executemany("UPDATE many SET v = %s WHERE id = %s", [("u", 1), ("u", 2), ("u", 9999)])
        want(n, 2, "executemany UPDATE rowcount")
        c.commit()
        want(query_one(a, "SELECT COUNT(*) FROM many WHERE v = 'u'")[0], 2, "rows updated")
    finally:
        c.close()
        a.close()


@check
def lastrowid_and_rowcount():
    a = admin()
    try:
        cur = a.cursor()
        cur.execute("CREATE TABLE ai (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT)")
        cur.execute("INSERT INTO ai (v) VALUES (10)")
        want(cur.lastrowid, 1, "lastrowid")
        cur.execute("INSERT INTO ai (v) VALUES (20), (30)")
        want(cur.lastrowid, 2, "lastrowid of a multi-row insert (the first id)")
        want(cur.execute("UPDATE ai SET v = v + 1 WHERE v >= 20"), 2, "UPDATE rowcount")
        want(cur.execute("DELETE FROM ai WHERE v = 10"), 1, "DELETE rowcount")
    finally:
        a.close()


@check
def server_side_cursor_streams_rows():
    a = admin()
    try:
        a.cursor().execute("CREATE TABLE big (id INT PRIMARY KEY, v VARCHAR(40))")
        cur = a.cursor()
        for start in range(0, 5000, 1000):
            cur.executemany("INSERT INTO big VALUES (%s, %s)", [(i, "row-%d" % i) for i in range(start, start + 1000)])
        ss = a.cursor(cursors.SSCursor)
        ss.execute("SELECT id, v FROM big ORDER BY id")
        first = ss.fetchmany(10)
        want([r[0] for r in first], list(range(10)), "first fetchmany")
        total, count = sum(r[0] for r in first), len(first)
        for row in ss:
            want(row[1], "row-%d" % row[0], "streamed row")
            total += row[0]
            count += 1
        ss.close()
        want((count, total), (5000, sum(range(5000))), "rows streamed")
        # The connection is usable after the stream.
        want(query_one(a, "SELECT COUNT(*) FROM big")[0], 5000, "count after streaming")
    finally:
        a.close()


def main():
    setup = drv.connect(host=HOST, port=PORT, user=USER, passwd=PASSWORD, charset="utf8mb4")
    setup.autocommit(True)
    setup.cursor().execute("DROP DATABASE IF EXISTS " + DB)
    setup.cursor().execute("CREATE DATABASE " + DB + " CHARACTER SET utf8mb4")
    setup.close()
    for fn in CHECKS:
        try:
            fn()
            out = {"check": fn.__name__, "ok": True, "detail": ""}
        except CheckFailed as e:
            out = {"check": fn.__name__, "ok": False, "detail": str(e)}
        except Exception:
            out = {"check": fn.__name__, "ok": False, "detail": traceback.format_exc(limit=3)}
        print(json.dumps(out), flush=True)


main()
