CREATE DATABASE IF NOT EXISTS sb;
USE sb;
DROP TABLE IF EXISTS lineitem, seq;
CREATE TABLE seq (n INT PRIMARY KEY);
INSERT INTO seq VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9);
CREATE TABLE lineitem (l_orderkey INT NOT NULL, l_linenumber INT NOT NULL, l_quantity DECIMAL(15,2) NOT NULL,
  l_extendedprice DECIMAL(15,2) NOT NULL, l_discount DECIMAL(15,2) NOT NULL, l_tax DECIMAL(15,2) NOT NULL,
  l_returnflag CHAR(1) NOT NULL, l_linestatus CHAR(1) NOT NULL, l_shipdate DATE NOT NULL, PRIMARY KEY (l_orderkey, l_linenumber));
INSERT INTO lineitem SELECT a.n*100000+b.n*10000+c.n*1000+d.n*100+e.n*10+f.n, 1, 1 + (a.n*7+b.n*3+f.n) % 50,
  900 + ((a.n*100000+b.n*10000+c.n*1000+d.n*100+e.n*10+f.n) % 100000) / 100, ((c.n + d.n) % 11) / 100, ((e.n + f.n) % 9) / 100,
  ELT(1 + (b.n + e.n) % 3, 'A', 'N', 'R'), ELT(1 + (c.n + f.n) % 2, 'F', 'O'),
  DATE_ADD('1992-01-01', INTERVAL (a.n*100000+b.n*10000+c.n*1000+d.n*100+e.n*10+f.n) % 2500 DAY)
  FROM seq a, seq b, seq c, seq d, seq e, seq f WHERE a.n < 3;
