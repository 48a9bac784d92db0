package stats

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{2, 2, 9, 2}, 2},
	} {
		in := append([]float64(nil), c.xs...)
		assert.Equal(t, c.want, Median(c.xs), "Median(%v)", in)
		assert.Equal(t, in, c.xs, "Median must not reorder its argument")
	}
}
