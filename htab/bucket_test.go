package htab

import (
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBucketSizeAndZero(t *testing.T) {
	var b Bucket
	assert.Equal(t, uintptr(8), unsafe.Sizeof(b), "Bucket is 8 bytes")
	assert.Zero(t, b.Head())
	b.SetHead(42)
	assert.Equal(t, uint32(42), b.Head())
}

func TestBucketReadValid(t *testing.T) {
	var b Bucket
	s := b.ReadBegin()
	assert.Zero(t, s&1, "ReadBegin returns an even sequence")
	assert.True(t, b.ReadValid(s), "nothing happened in between")
	assert.True(t, b.ReadValid(s), "ReadValid does not change the bucket")

	b.Lock()
	b.SetHead(7) // a writer's change, which the reader must not trust
	b.Unlock()
	assert.False(t, b.ReadValid(s), "a Lock/Unlock in between invalidates the read")

	s2 := b.ReadBegin()
	assert.NotEqual(t, s, s2)
	assert.True(t, b.ReadValid(s2))

	// A read that began before a writer took the bucket is invalid while the
	// writer holds it, too.
	b.Lock()
	assert.False(t, b.ReadValid(s2))
	b.Unlock()
	assert.False(t, b.ReadValid(s2))
}

func TestBucketReadBeginWaitsForWriter(t *testing.T) {
	var b Bucket
	b.Lock()
	got := make(chan uint32)
	go func() { got <- b.ReadBegin() }()
	select {
	case s := <-got:
		t.Fatalf("ReadBegin returned %d while a writer held the bucket", s)
	case <-time.After(20 * time.Millisecond):
	}
	b.Unlock()
	select {
	case s := <-got:
		assert.Zero(t, s&1)
		assert.True(t, b.ReadValid(s))
	case <-time.After(10 * time.Second):
		t.Fatal("ReadBegin did not return after Unlock")
	}
}

// TestBucketLockExcludes: a plain counter incremented under Lock by many
// goroutines ends at the exact total, and -race sees the happens-before edges.
func TestBucketLockExcludes(t *testing.T) {
	const goroutines, iters = 8, 2000
	var b Bucket
	counter := 0
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range iters {
				b.Lock()
				counter++
				b.Unlock()
			}
		})
	}
	wg.Wait()
	assert.Equal(t, goroutines*iters, counter)
	s := b.ReadBegin()
	assert.Zero(t, s&1)
}

// TestBucketSeqlockConsistency: writers bump a pair of counters under Lock;
// readers that read them between ReadBegin and a successful ReadValid always
// see them equal.
func TestBucketSeqlockConsistency(t *testing.T) {
	const writers, readers = 4, 4
	iters := 20000
	if testing.Short() {
		iters = 2000
	}
	var b Bucket
	var x, y atomic.Uint64
	var stop atomic.Bool
	var valid, retried atomic.Int64
	var wg, rwg, readersIn sync.WaitGroup
	// The writers start once every reader has read: an emulated run
	// (qemu-user) once finished all writes before any reader was scheduled.
	readersIn.Add(readers)
	for range writers {
		wg.Go(func() {
			readersIn.Wait()
			for range iters {
				b.Lock()
				x.Add(1)
				y.Add(1)
				b.Unlock()
			}
		})
	}
	for range readers {
		rwg.Go(func() {
			var in sync.Once
			for !stop.Load() {
				s := b.ReadBegin()
				vx := x.Load()
				vy := y.Load()
				ok := b.ReadValid(s)
				in.Do(readersIn.Done)
				if !ok {
					retried.Add(1)
					continue
				}
				valid.Add(1)
				if vx != vy {
					t.Errorf("a validated read saw x=%d y=%d", vx, vy)
					return
				}
			}
		})
	}
	wg.Wait()
	stop.Store(true)
	rwg.Wait()
	require.Equal(t, uint64(writers*iters), x.Load())
	require.Equal(t, uint64(writers*iters), y.Load())
	assert.Positive(t, valid.Load(), "some reads validated")
	t.Logf("validated reads %d, retried %d", valid.Load(), retried.Load())
	// After all writers, a read validates.
	s := b.ReadBegin()
	assert.True(t, b.ReadValid(s))
}

func TestBucketCount(t *testing.T) {
	for _, tc := range []struct{ in, want int }{
		{1, 1}, {2, 2}, {3, 4}, {4, 4}, {5, 8}, {1000, 1024}, {1024, 1024},
		{32768, 32768}, {32769, 65536}, {65536, 65536}, {65537, 131072},
		{1 << 30, 1 << 30},
	} {
		assert.Equal(t, tc.want, BucketCount(tc.in), "BucketCount(%d)", tc.in)
	}
	if limit := int64(MaxMaxEntries); int64(math.MaxInt) > limit { // 64-bit int
		assert.Equal(t, int(limit), BucketCount(int(limit)))
		assert.Equal(t, int(limit), BucketCount(int(limit/2+1)))
	}
}
