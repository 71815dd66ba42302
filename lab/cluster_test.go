package lab

import "testing"

// The supervisor's log arrives in arbitrary pieces; the newest pid of
// each node wins.
func TestPidScanner(t *testing.T) {
	s := &pidScanner{pids: map[string]int{}}
	for _, w := range []string{
		`time=x level=INFO msg="cluster: started" node=node1 port=20000 pid=1`,
		"01\ntime=x level=INFO msg=\"cluster: started\" node=node2 port=20001 pid=102\n",
		"time=x level=INFO msg=\"cluster: promoted\" primary=node2\n",
		`time=x level=INFO msg="cluster: started" node=node1 port=20000 pid=`, "555\n",
		`time=x level=INFO msg="cluster: started" node=node3 port=20002 pid=7`, // no newline yet
	} {
		if n, err := s.Write([]byte(w)); n != len(w) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	for node, want := range map[string]int{"node1": 555, "node2": 102, "node3": 0} {
		if got := s.pid(node); got != want {
			t.Errorf("pid(%s) = %d, want %d", node, got, want)
		}
	}
}
