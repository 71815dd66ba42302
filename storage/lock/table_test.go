package lock

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestTableModel drives a table with inserts, lookups and removals
// against a Go map, with hashes drawn from a few values so that probe
// runs collide, wrap around the table's end and are shifted back on
// removal; the table grows and, emptied, shrinks.
func TestTableModel(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 2))
	for round := 0; round < 20; round++ {
		var tb table
		model := map[string]*entry{}
		// Few distinct hashes, anywhere in the table (runs wrap around
		// its end), some equal but for the bits above the table's size.
		homes := make([]uint64, 1+rng.IntN(40))
		for i := range homes {
			homes[i] = rng.Uint64() &^ (3 << 60)
		}
		hashOf := map[string]uint64{}
		hash := func(k string) uint64 {
			h, ok := hashOf[k]
			if !ok {
				h = homes[rng.IntN(len(homes))] | uint64(rng.IntN(4))<<60
				hashOf[k] = h
			}
			return h
		}
		check := func(op string) {
			t.Helper()
			if tb.n != len(model) {
				t.Fatalf("round %d, after %s: %d entries, model %d", round, op, tb.n, len(model))
			}
			for k, want := range model {
				if got, _ := tb.find(hash(k), []byte(k)); got != want {
					t.Fatalf("round %d, after %s: key %q found %v, want %v", round, op, k, got, want)
				}
			}
		}
		universe := 50 + rng.IntN(5000)
		for op := 0; op < 20000; op++ {
			k := fmt.Sprint("k", rng.IntN(universe))
			h := hash(k)
			e, free := tb.find(h, []byte(k))
			if e != model[k] {
				t.Fatalf("round %d op %d: key %q found %v, model %v", round, op, k, e, model[k])
			}
			switch {
			case e == nil && rng.IntN(3) > 0:
				e = &entry{key: k, hash: h}
				tb.insert(free, e)
				model[k] = e
			case e != nil && rng.IntN(2) == 0:
				tb.remove(e)
				delete(model, k)
			}
			if op%997 == 0 {
				check(fmt.Sprint("op ", op))
			}
		}
		check("the ops")
		for k, e := range model {
			tb.remove(e)
			delete(model, k)
			if len(model)%101 == 0 {
				check("a removal")
			}
		}
		if tb.n != 0 || len(tb.slots) >= shrinkFrom {
			t.Fatalf("round %d: emptied table has %d entries in %d slots", round, tb.n, len(tb.slots))
		}
	}
}

// TestManyOwnersModel: owners take and release locks on a few thousand
// keys without waiting (TryAcquire, AcquireNew on keys they hold); the
// manager's holders agree with a model throughout, across the shards'
// tables growing and shrinking and entries allocated in chunks.
func TestManyOwnersModel(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 3))
	m := NewManager(Options{})
	holder := map[string]uint64{}
	held := map[uint64]map[string]bool{}
	nextOwner := uint64(1)
	owners := []uint64{}
	const keys = 20000
	for op := 0; op < 200000; op++ {
		switch r := rng.IntN(1000); {
		case r < 3 || len(owners) == 0:
			owners = append(owners, nextOwner)
			held[nextOwner] = map[string]bool{}
			nextOwner++
		case r < 8:
			i := rng.IntN(len(owners))
			o := owners[i]
			m.ReleaseAll(o)
			for k := range held[o] {
				delete(holder, k)
			}
			delete(held, o)
			owners = append(owners[:i], owners[i+1:]...)
		default:
			o := owners[rng.IntN(len(owners))]
			k := fmt.Sprintf("key-%d", rng.IntN(keys))
			h, taken := holder[k]
			switch {
			case taken && h == o:
				isNew, err := m.AcquireNew(bg, o, []byte(k), time.Second)
				if err != nil || isNew {
					t.Fatalf("op %d: owner %d again on its %q: new %v, %v", op, o, k, isNew, err)
				}
			case taken:
				if m.TryAcquire(o, []byte(k)) {
					t.Fatalf("op %d: owner %d took %q, held by %d", op, o, k, h)
				}
			default:
				if !m.TryAcquire(o, []byte(k)) {
					t.Fatalf("op %d: owner %d could not take free %q", op, o, k)
				}
				holder[k] = o
				held[o][k] = true
			}
		}
		if op%20011 == 0 {
			for i := 0; i < keys; i++ {
				k := fmt.Sprintf("key-%d", i)
				got, ok := m.Holder([]byte(k))
				if want, wok := holder[k]; ok != wok || got != want {
					t.Fatalf("op %d: %q held by %d (%v), model %d (%v)", op, k, got, ok, want, wok)
				}
			}
			for o, ks := range held {
				if n := m.Held(o); n != len(ks) {
					t.Fatalf("op %d: owner %d holds %d, model %d", op, o, n, len(ks))
				}
			}
			if n := m.Stats().LocksHeld; n != int64(len(holder)) {
				t.Fatalf("op %d: %d locks held, model %d", op, n, len(holder))
			}
		}
	}
	for _, o := range owners {
		m.ReleaseAll(o)
	}
	checkEmpty(t, m)
}
