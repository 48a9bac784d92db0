package lru

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/cachelines"
)

// TestLRUPerCPUValuesOwnCacheLines: no cache line holds values of two CPUs,
// so that CPUs replacing their own values in place never write a line
// another CPU writes; for sizes whose arrays land in size classes that are
// not multiples of a line.
func TestLRUPerCPUValuesOwnCacheLines(t *testing.T) {
	for _, cpus := range []int{2, 3, 4} {
		for _, max := range []int{4, 10, 1000} {
			t.Run(fmt.Sprintf("cpus=%d/max=%d", cpus, max), func(t *testing.T) {
				m, err := NewLRUPerCPUK8V8(htab.Options{MaxEntries: max, CPUs: cpus})
				require.NoError(t, err)
				var lines cachelines.Owners
				for c := range cpus {
					require.NoError(t, cachelines.ClaimSlice(&lines, c, m.slots[c]))
				}
			})
		}
	}
}
