package mysqlerr

import "testing"

// TestIsClientError: the client library's range, 2000 to 2999, and
// nothing beside it.
func TestIsClientError(t *testing.T) {
	for num, want := range map[int]bool{
		ErUnknown: false, 1999: false, 2000: true, CrConnHostError: true, CrServerLost: true,
		CrSSLConnectionError: true, 2999: true, 3000: false, ErCloneDonor: false,
	} {
		if got := IsClientError(num); got != want {
			t.Errorf("IsClientError(%d) = %v, want %v", num, got, want)
		}
	}
}

// TestState: numbers the table lists get MySQL's SQLSTATE, others HY000.
func TestState(t *testing.T) {
	for num, want := range map[int]string{
		ErSpecificAccessDenied: "42000", ErAccessDenied: "28000", ErParse: "42000", ErDupEntry: "23000",
		ErUnknown: "HY000", CrServerLost: "HY000", ErReplicaRelayLogReadFailure: "HY000",
	} {
		if got := State(num); got != want {
			t.Errorf("State(%d) = %q, want %q", num, got, want)
		}
	}
}
