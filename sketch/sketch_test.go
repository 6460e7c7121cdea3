package sketch

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func nearestRank(sorted []float64, p float64) float64 {
	return sorted[max(int(math.Ceil(p*float64(len(sorted))))-1, 0)]
}

// TestQuantilesAreWithinTheRelativeError draws response times over six
// orders of magnitude and checks every percentile against the exact
// nearest-rank one.
func TestQuantilesAreWithinTheRelativeError(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 10, 64, 65, 1000, 100_000} {
		var s Sketch
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = math.Exp(r.NormFloat64()*3) * 30 // 30 s, wide
			s.Add(vals[i])
		}
		slices.Sort(vals)
		for _, p := range []float64{0.01, 0.25, 0.5, 0.9, 0.99, 1} {
			want, got := nearestRank(vals, p), s.Quantile(p)
			if n <= ExactLimit {
				assert.Equal(t, want, got, "n=%d p=%v: exact while it keeps every value", n, p)
				continue
			}
			assert.LessOrEqual(t, math.Abs(got-want)/want, RelativeError, "n=%d p=%v: %v vs %v", n, p, got, want)
		}
	}
}

// TestMergeIsTheSketchOfTheWhole: merging the sketches of parts gives the
// sketch of all the values, in any order.
func TestMergeIsTheSketchOfTheWhole(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var whole Sketch
	parts := make([]Sketch, 24)
	for i := range 5000 {
		v := r.ExpFloat64() * float64(1+i%7) * 40
		if i%97 == 0 {
			v = 0
		}
		whole.Add(v)
		parts[r.IntN(len(parts))].Add(v)
	}
	var fwd, back Sketch
	for i := range parts {
		fwd.Merge(&parts[i])
		back.Merge(&parts[len(parts)-1-i])
	}
	assert.Equal(t, whole, fwd)
	assert.Equal(t, whole, back)

	var a, b Sketch
	a.Add(3)
	a.Add(1)
	b.Add(2)
	a.Merge(&b)
	assert.Equal(t, []float64{1, 2, 3}, a.Exact, "two small exact sketches merge exactly")
	assert.Equal(t, 2.0, a.Quantile(0.5))
}

// TestRemoveUndoesAdd: a reopened question's time leaves the sketch as if
// it was never added.
func TestRemoveUndoesAdd(t *testing.T) {
	var s, before Sketch
	for i := range 100 {
		s.Add(float64(i + 1))
		before.Add(float64(i + 1))
	}
	s.Add(12345)
	s.Remove(12345)
	assert.Equal(t, before, s)

	var e Sketch
	e.Add(5)
	e.Remove(5)
	assert.Equal(t, uint64(0), e.N)
	assert.Equal(t, 0.0, e.Quantile(0.5))
	e.Remove(5)
	assert.Equal(t, uint64(0), e.N, "never below empty")
}

func TestZeroAndNegativeValues(t *testing.T) {
	var s Sketch
	for range 100 {
		s.Add(0)
	}
	s.Add(-1)
	s.Add(10)
	assert.Equal(t, 0.0, s.Quantile(0.5))
	assert.InDelta(t, 10, s.Quantile(1), 10*RelativeError)
}

func TestJSONRoundTrip(t *testing.T) {
	var s Sketch
	for i := range 200 {
		s.Add(float64(i) / 3)
	}
	data, err := json.Marshal(&s)
	require.NoError(t, err)
	var back Sketch
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, s, back)
	c := s.Clone()
	c.Add(1e9)
	assert.NotEqual(t, s.N, c.N, "a clone shares nothing")
}
