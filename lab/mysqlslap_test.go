package lab

import "testing"

// mysqlslap 10.11's summary is parsed into seconds, clients and queries.
func TestParseMysqlslap(t *testing.T) {
	out := "Benchmark\n\tAverage number of seconds to run all queries: 0.336 seconds\n" +
		"\tMinimum number of seconds to run all queries: 0.300 seconds\n" +
		"\tMaximum number of seconds to run all queries: 0.400 seconds\n" +
		"\tNumber of clients running queries: 10\n\tAverage number of queries per client: 100\n\n"
	r, err := ParseMysqlslap(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.AvgSeconds != 0.336 || r.MinSeconds != 0.3 || r.MaxSeconds != 0.4 || r.Clients != 10 || r.Queries != 1000 {
		t.Errorf("parsed %+v", r)
	}
	if r.QPS < 2976 || r.QPS > 2977 {
		t.Errorf("QPS = %v, want 1000/0.336", r.QPS)
	}
	if _, err := ParseMysqlslap("mysqlslap: Error when connecting to server: 1045"); err == nil {
		t.Error("an error output parsed")
	}
}
