package uid

import (
	"strings"
	"testing"
	"time"
)

func TestNewSortsByTimeAndStaysUnique(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 6, 0, 0, 0, time.UTC)
	cases := []struct {
		name       string
		earlier    time.Time
		later      time.Time
		wantSorted bool
	}{
		{"4 ms apart", t0, t0.Add(4 * time.Millisecond), true},
		{"a year apart", t0, t0.AddDate(1, 0, 0), true},
		{"in the year 2100", t0.AddDate(73, 0, 0), t0.AddDate(74, 0, 0), true},
		{"later first", t0.Add(4 * time.Millisecond), t0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, b := at("q_", c.earlier), at("q_", c.later)
			if got := a < b; got != c.wantSorted {
				t.Fatalf("%s < %s = %v, want %v", a, b, got, c.wantSorted)
			}
		})
	}
	seen := map[string]bool{}
	for range 1000 {
		id := at("q_", t0) // the same time: only the random part differs
		if len(id) != 18 || !strings.HasPrefix(id, "q_") || strings.Trim(id[2:], idAlphabet) != "" {
			t.Fatalf("id %q: want q_ then 16 characters of %s", id, idAlphabet)
		}
		if seen[id] {
			t.Fatalf("id %q made twice", id)
		}
		seen[id] = true
	}
}
