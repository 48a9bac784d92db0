package proto

import (
	"fmt"
	"os"
	"sync/atomic"
	"testing"
)

// TestLayoutStats prints where the keys of a filled map sit: at their
// bucket's home slot, or further down the chain in the same cache line, the
// same 128-B line pair, or elsewhere. PROTO_STATS=1 enables it.
func TestLayoutStats(t *testing.T) {
	if os.Getenv("PROTO_STATS") == "" {
		t.Skip("PROTO_STATS not set")
	}
	for _, full := range []int{25, 50, 75, 100} {
		keys := peerKeys(peerMaxEntries * full / 100)
		for _, sz := range []int{24} {
			var st [5]int // head, same line, same pair, same page, far
			count := func(b uint32, chain []uint32) {
				for pos, i := range chain {
					if pos == 0 {
						st[0]++
						continue
					}
					h, e := int(b)*sz, int(i)*sz
					switch {
					case h/64 == e/64 && h/64 == (e+sz-1)/64:
						st[1]++
					case h/128 == e/128:
						st[2]++
					case h/4096 == e/4096:
						st[3]++
					default:
						st[4]++
					}
				}
			}
			{
				m := NewHome(peerMaxEntries, 0)
				fill(homePeer{m}, keys)
				for b := range m.slots {
					var chain []uint32
					if atomic.LoadUint32(&m.slots[b].next)&homeBit == 0 {
						continue
					}
					for i := uint32(b + 1); i != 0; i = atomic.LoadUint32(&m.slots[i-1].next) & idxMask {
						chain = append(chain, i-1)
					}
					count(uint32(b), chain)
				}
			}
			n := float64(len(keys)) / 100
			fmt.Printf("full %3d%% slot %dB: head %.1f%%  line %.1f%%  pair %.1f%%  page %.1f%%  far %.1f%%\n",
				full, sz, float64(st[0])/n, float64(st[1])/n, float64(st[2])/n, float64(st[3])/n, float64(st[4])/n)
		}
	}
}
