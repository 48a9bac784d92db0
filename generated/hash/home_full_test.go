package hash

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
)

// TestHomeErrFullLinearizable: ErrFull only while the map is full. A map of
// 64 holds 63 keys, all in buckets 0-3, so that most slots hold overflow
// elements. Y's bucket is empty and its slot holds an overflow element of a
// lower bucket c, whose lock a third goroutine keeps busy: inserting Y must
// try c's lock, and may have to let go of its own and start over. One
// goroutine inserts and deletes Y in rounds; another inserts Z (any other
// new key) and deletes it again. Z's insert may fail with ErrFull only if Y
// is in the map: if it fails while Y's insert has not returned, Y's insert
// must have taken effect first, so a lookup of Y right after must find it.
// (An insert that reserved room in the count and then let go of its lock to
// start over once made Z's insert fail with Y nowhere.)
func TestHomeErrFullLinearizable(t *testing.T) {
	const max = 64
	m, err := NewHomeK8V8(htab.Options{MaxEntries: max, ZeroSeed: true})
	require.NoError(t, err)
	key := func(i uint64) (k HomeK8V8Key) { binary.LittleEndian.PutUint64(k[:], i); return }
	bucket := func(k HomeK8V8Key) uint32 { w := k.words(); return m.hash(&k, &w) & m.mask }

	inBucket := map[uint32][]HomeK8V8Key{}
	for i, n := uint64(0), 0; n < max-1; i++ {
		if k := key(i); bucket(k) < 4 {
			require.NoError(t, m.Update(k, HomeK8V8Value{}, htab.UpdateNoExist))
			inBucket[bucket(k)] = append(inBucket[bucket(k)], k)
			n++
		}
	}
	var y, z HomeK8V8Key
	var c uint32
	for i := uint64(1 << 20); ; i++ {
		k := key(i)
		b := bucket(k)
		s := &m.slots[b]
		if b < 8 || atomic.LoadUint32(&s.next)&homeK8V8HomeBit != 0 {
			continue // not an empty bucket above 4-7
		}
		if m.freeSlots.Claim(b) {
			m.freeSlots.Release(b) // a free slot: inserting Y needs no other lock
			continue
		}
		if c = m.slotBucket(s); c < b {
			y = k
			break
		}
	}
	for i := uint64(1 << 22); ; i++ {
		if k := key(i); bucket(k) >= 8 && bucket(k) != bucket(y) {
			z = k
			break
		}
	}

	rounds := 500_000
	if testing.Short() {
		rounds = 20_000
	}
	var phase, done atomic.Int64 // odd: Y's insert in progress; done: the last phase whose insert returned
	var stop atomic.Bool
	var violations, fulls atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() { // keeps bucket c's lock busy
		for n := 0; !stop.Load(); n++ {
			ks := inBucket[c]
			_ = m.Update(ks[n%len(ks)], HomeK8V8Value{byte(n)}, htab.UpdateExist)
		}
	})
	wg.Go(func() {
		for !stop.Load() {
			p, d := phase.Load(), done.Load()
			err := m.Update(z, HomeK8V8Value{2}, htab.UpdateNoExist)
			if err == nil {
				require.NoError(t, m.Delete(z))
				continue
			}
			require.ErrorIs(t, err, htab.ErrFull)
			fulls.Add(1)
			_, yIn := m.Lookup(y)
			if !yIn && p%2 == 1 && d != p && phase.Load() == p {
				violations.Add(1)
			}
		}
	})
	start := time.Now()
	for r := 0; r < rounds && time.Since(start) < 10*time.Second; r++ {
		p := phase.Add(1)
		for m.Update(y, HomeK8V8Value{1}, htab.UpdateNoExist) != nil {
			// ErrFull while Z is in: the map is full, rightly
		}
		done.Store(p)
		phase.Add(1)
		require.NoError(t, m.Delete(y))
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d rounds, %d ErrFull for Z", phase.Load()/2, fulls.Load())
	require.Zero(t, violations.Load(), "ErrFull for Z while Y was not in the map (of %d ErrFull)", fulls.Load())
}
