package base

import "testing"

func TestGTIDSet(t *testing.T) {
	s, err := ParseGTIDSet("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:7,3e11fa47-71ca-11e1-9e33-c80aa9429563:3")
	if err != nil {
		t.Fatal(err)
	}
	sid, _ := ParseSID("3e11fa47-71ca-11e1-9e33-c80aa9429562")
	s.Add(GTID{SID: sid, GNO: 6})
	if got := s.String(); got != "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-7,\n3e11fa47-71ca-11e1-9e33-c80aa9429563:3" {
		t.Fatalf("String() = %q", got)
	}
	d, err := DecodeGTIDSet(s.Encode())
	if err != nil || !d.Equal(s) {
		t.Fatalf("encode/decode: %v %v", d, err)
	}
	sub, _ := ParseGTIDSet("3e11fa47-71ca-11e1-9e33-c80aa9429562:2-3")
	if !s.ContainsSet(sub) || sub.ContainsSet(s) {
		t.Fatal("ContainsSet")
	}
	if got := s.Subtract(sub).String(); got != "3e11fa47-71ca-11e1-9e33-c80aa9429562:1:4-7,\n3e11fa47-71ca-11e1-9e33-c80aa9429563:3" {
		t.Fatalf("Subtract = %q", got)
	}
	if s.Count() != 8 || s.Subtract(sub).Count() != 6 || NewGTIDSet().Count() != 0 {
		t.Fatalf("Count = %d, %d", s.Count(), s.Subtract(sub).Count())
	}
	for _, bad := range []string{"nope:1", "3e11fa47-71ca-11e1-9e33-c80aa9429562", "3e11fa47-71ca-11e1-9e33-c80aa9429562:5-3", "3e11fa47-71ca-11e1-9e33-c80aa9429562:0"} {
		if _, err := ParseGTIDSet(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func FuzzDecodeGTIDSet(f *testing.F) {
	f.Add(NewGTIDSet().Encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		if s, err := DecodeGTIDSet(b); err == nil {
			if d, err := DecodeGTIDSet(s.Encode()); err != nil || !d.Equal(s) {
				t.Fatalf("re-encode mismatch")
			}
		}
	})
}
