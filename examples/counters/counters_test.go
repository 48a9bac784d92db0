package counters

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
)

func newCounters(t testing.TB, workers int) *Counters {
	t.Helper()
	m, err := New(workers)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNewStartsAtZero(t *testing.T) {
	m := newCounters(t, 3)
	if got, want := Snapshot(m), (map[ID]uint64{Packets: 0, Bytes: 0, Drops: 0}); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Snapshot = %v, want %v", got, want)
	}
}

// Each worker's counts land on its own CPU; the reader's sum is theirs.
func TestWorkersOnTheirCPUs(t *testing.T) {
	m := newCounters(t, 3)
	for i, n := range []int{5, 0, 2} {
		w := NewWorker(m.CPU(i))
		for range n {
			if err := w.Packet(100, false); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Packet(1, true); err != nil {
			t.Fatal(err)
		}
	}
	total, perCPU, err := Sum(m, Packets)
	if err != nil {
		t.Fatal(err)
	}
	if total != 7 || !slices.Equal(perCPU, []uint64{5, 0, 2}) {
		t.Fatalf("packets: %d %v, want 7 [5 0 2]", total, perCPU)
	}
	if got := Snapshot(m); got[Bytes] != 700 || got[Drops] != 3 {
		t.Fatalf("Snapshot = %v, want 700 bytes, 3 drops", got)
	}
}

// Workers count concurrently, with plain lookups and updates of their own
// CPU's values, while a reader sums: no count is lost, and the reader's sums
// never go down.
func TestConcurrentWorkers(t *testing.T) {
	const workers = 4
	perWorker := 20000
	if testing.Short() {
		perWorker = 2000
	}
	m := newCounters(t, workers)
	var wg sync.WaitGroup
	for i := range workers {
		w := NewWorker(m.CPU(i))
		wg.Go(func() {
			for range perWorker {
				if err := w.Packet(64, false); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	done := make(chan struct{})
	var reader sync.WaitGroup
	reader.Go(func() {
		var last uint64
		for {
			total, _, err := Sum(m, Packets)
			if err != nil {
				t.Error(err)
				return
			}
			if total < last {
				t.Errorf("the sum went down: %d after %d", total, last)
				return
			}
			last = total
			select {
			case <-done:
				return
			default:
			}
		}
	})
	wg.Wait()
	close(done)
	reader.Wait()
	total, perCPU, err := Sum(m, Packets)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range perCPU {
		if n != uint64(perWorker) {
			t.Errorf("CPU %d: %d packets, want %d", i, n, perWorker)
		}
	}
	if want := uint64(workers * perWorker); total != want {
		t.Fatalf("%d packets, want %d", total, want)
	}
	if got := Snapshot(m)[Bytes]; got != uint64(64*workers*perWorker) {
		t.Fatalf("%d bytes, want %d", got, 64*workers*perWorker)
	}
}

func TestSumOfAnAbsentCounter(t *testing.T) {
	if _, _, err := Sum(newCounters(t, 1), 42); !errors.Is(err, ErrNoCounter) {
		t.Fatalf("Sum(42): %v, want ErrNoCounter", err)
	}
}

func TestIDString(t *testing.T) {
	if got := fmt.Sprint(Packets, Bytes, Drops, ID(9)); got != "packets bytes drops ID(9)" {
		t.Fatalf("%q", got)
	}
}

// BenchmarkAdd adds to a counter through one CPU's handle.
func BenchmarkAdd(b *testing.B) {
	w := NewWorker(newCounters(b, 1).CPU(0))
	for b.Loop() {
		if err := w.Add(Packets, 1); err != nil {
			b.Fatal(err)
		}
	}
}
