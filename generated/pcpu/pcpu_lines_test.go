package pcpu

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/htab/htabtest"
	"github.com/htabgen/htabgen/internal/cachelines"
)

// TestPerCPUValuesOwnCacheLines: no cache line holds values or slot locks of
// two CPUs, so that CPUs updating their own values never write a line
// another CPU writes. Preallocated and NoPrealloc (whose value chunks come
// with the elements, checked once every element exists), for sizes whose
// arrays land in size classes that are not multiples of a line.
func TestPerCPUValuesOwnCacheLines(t *testing.T) {
	for _, noPrealloc := range []bool{false, true} {
		for _, cpus := range []int{2, 3, 4} {
			for _, max := range []int{1, 3, 10, 1000} {
				t.Run(fmt.Sprintf("noprealloc=%v/cpus=%d/max=%d", noPrealloc, cpus, max), func(t *testing.T) {
					m, err := NewPerCPUK8V8(htab.Options{MaxEntries: max, CPUs: cpus, NoPrealloc: noPrealloc})
					require.NoError(t, err)
					for i := range max {
						require.NoError(t, m.Update(htabtest.Key[PerCPUK8V8Key](i), htabtest.Spread(htabtest.Value[PerCPUK8V8Value](i), cpus), htab.UpdateNoExist))
					}
					var lines cachelines.Owners
					for c := range cpus {
						require.NoError(t, cachelines.ClaimSlice(&lines, c, m.slotLocks[c]), "slot locks")
						if noPrealloc {
							for j := range m.slotChunks[c] {
								if p := m.slotChunks[c][j].Load(); p != nil {
									require.NoError(t, cachelines.ClaimSlice(&lines, c, p[:]), "value chunk")
								}
							}
						} else {
							require.NoError(t, cachelines.ClaimSlice(&lines, c, m.slots[c]), "values")
						}
					}
				})
			}
		}
	}
}
