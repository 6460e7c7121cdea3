// Package sketch is a mergeable summary of a distribution of non-negative
// values (response times) from which quantiles are read with a bounded
// relative error: a DDSketch-style histogram of logarithmic buckets
// (Masson, Rim and Lee, "DDSketch", VLDB 2019).
//
// A value v > 0 is counted in bucket i = ceil(log_γ v), γ = (1+α)/(1-α);
// the bucket's value 2γ^i/(γ+1) is within a relative error α = 1% of
// every value in it. A quantile is the value of the bucket holding the
// nearest-rank element, so it is within 1% of the exact nearest-rank
// quantile of the values counted. Values at or below MinValue (and
// negative ones) are counted in a zero bucket read back as 0.
//
// While a sketch holds at most ExactLimit values it also keeps them
// exactly, and its quantiles are exact; merging two exact sketches whose
// values fit keeps them exact. Merging is adding counts: the merge of the
// sketches of parts is the sketch of the whole, in any order.
package sketch

import (
	"math"
	"slices"
)

// RelativeError is α: the bound on |q̂ - q| / q of every quantile read
// from a sketch that is no longer exact.
const RelativeError = 0.01

// ExactLimit is how many values a sketch keeps exactly.
const ExactLimit = 64

// MinValue is the smallest value told apart from 0.
const MinValue = 1e-6

var (
	gamma    = (1 + RelativeError) / (1 - RelativeError)
	logGamma = math.Log(gamma)
)

// Sketch is the summary. The zero value is an empty sketch. Its fields are
// exported for encoding (JSON) only; use its methods.
type Sketch struct {
	// N is how many values it counts.
	N uint64 `json:"n"`
	// Zero counts the values at or below MinValue.
	Zero uint64 `json:"zero,omitempty"`
	// Bins counts the values of bucket i at Bins[i-Offset].
	Offset int      `json:"offset,omitempty"`
	Bins   []uint64 `json:"bins,omitempty"`
	// Exact holds every value, sorted, while N <= ExactLimit and no
	// value was dropped from it (Inexact).
	Exact   []float64 `json:"exact,omitempty"`
	Inexact bool      `json:"inexact,omitempty"`
}

func index(v float64) int { return int(math.Ceil(math.Log(v) / logGamma)) }

func value(i int) float64 { return 2 * math.Pow(gamma, float64(i)) / (gamma + 1) }

// Add counts v once.
func (s *Sketch) Add(v float64) { s.add(v, 1) }

// Remove uncounts v, counted before by Add (a value that was reopened).
// Removing a value never added leaves the counts wrong; a sketch never
// goes below empty.
func (s *Sketch) Remove(v float64) { s.add(v, -1) }

func (s *Sketch) add(v float64, d int) {
	if d < 0 && s.N == 0 {
		return
	}
	s.N = uint64(int64(s.N) + int64(d))
	s.exact(v, d)
	if v <= MinValue {
		s.Zero = uint64(max(int64(s.Zero)+int64(d), 0))
		return
	}
	i := index(v)
	s.grow(i)
	j := i - s.Offset
	s.Bins[j] = uint64(max(int64(s.Bins[j])+int64(d), 0))
	s.trim()
}

func (s *Sketch) exact(v float64, d int) {
	if s.Inexact {
		return
	}
	if d > 0 {
		if s.N > ExactLimit {
			s.Exact, s.Inexact = nil, true
			return
		}
		i, _ := slices.BinarySearch(s.Exact, v)
		s.Exact = slices.Insert(s.Exact, i, v)
		return
	}
	if i, ok := slices.BinarySearch(s.Exact, v); ok {
		s.Exact = slices.Delete(s.Exact, i, i+1)
	}
}

// grow makes Bins hold bucket i.
func (s *Sketch) grow(i int) {
	switch {
	case len(s.Bins) == 0:
		s.Offset, s.Bins = i, []uint64{0}
	case i < s.Offset:
		s.Bins = append(make([]uint64, s.Offset-i), s.Bins...)
		s.Offset = i
	case i >= s.Offset+len(s.Bins):
		s.Bins = append(s.Bins, make([]uint64, i-s.Offset-len(s.Bins)+1)...)
	}
}

// trim drops empty buckets at both ends.
func (s *Sketch) trim() {
	lo, hi := 0, len(s.Bins)
	for lo < hi && s.Bins[lo] == 0 {
		lo++
	}
	for hi > lo && s.Bins[hi-1] == 0 {
		hi--
	}
	if lo == hi {
		s.Offset, s.Bins = 0, nil
		return
	}
	s.Offset += lo
	s.Bins = s.Bins[lo:hi]
}

// Merge adds the counts of o to s.
func (s *Sketch) Merge(o *Sketch) {
	if o == nil || o.N == 0 {
		return
	}
	switch {
	case s.Inexact || o.Inexact || s.N+o.N > ExactLimit:
		s.Exact, s.Inexact = nil, true
	default:
		s.Exact = append(s.Exact, o.Exact...)
		slices.Sort(s.Exact)
	}
	s.N += o.N
	s.Zero += o.Zero
	if len(o.Bins) > 0 {
		s.grow(o.Offset)
		s.grow(o.Offset + len(o.Bins) - 1)
		for j, c := range o.Bins {
			s.Bins[o.Offset+j-s.Offset] += c
		}
	}
}

// Quantile is the nearest-rank p-quantile (0 < p <= 1) of the values
// counted: exact while the sketch is exact, else within RelativeError of
// it. It is 0 for an empty sketch.
func (s *Sketch) Quantile(p float64) float64 {
	if s.N == 0 {
		return 0
	}
	rank := uint64(max(int(math.Ceil(p*float64(s.N)))-1, 0)) // 0-based
	if !s.Inexact && uint64(len(s.Exact)) == s.N {
		return s.Exact[rank]
	}
	if rank < s.Zero {
		return 0
	}
	seen := s.Zero
	for j, c := range s.Bins {
		seen += c
		if rank < seen {
			return value(s.Offset + j)
		}
	}
	return value(s.Offset + len(s.Bins) - 1)
}

// Clone returns a copy of s that shares nothing with it.
func (s *Sketch) Clone() *Sketch {
	c := *s
	c.Bins = slices.Clone(s.Bins)
	c.Exact = slices.Clone(s.Exact)
	return &c
}
