// Package diff computes unified diffs of text, line by line: Myers's
// O(ND) algorithm in linear space, with real line numbers and a chosen
// number of context lines, and reads them back (Parse) for rendering.
// It is pure: no files, no clock.
package diff

// maxCost bounds the edit distance the middle-snake search explores in one
// region: beyond it the region is shown as removed then added, which is a
// correct diff, only not the shortest (no person reads a diff that large
// line by line anyway).
const maxCost = 1024

// anchorAbove is the size (lines of both sides) above which a region is
// first cut at the lines that occur once on each side, in order (as
// patience diff does): large inputs stay fast and their diffs line up on
// the lines that are surely the same. Smaller regions get Myers's
// shortest diff.
const anchorAbove = 2000

// differ marks which lines of a were removed and which of b were added.
type differ struct {
	a, b           []int // line ids
	removed, added []bool
	v1, v2         []int
	cost           int
}

// edits marks the lines of a removed and of b added in a shortest edit
// script (up to maxCost per region).
func edits(a, b []int, cost int) (removed, added []bool) {
	d := &differ{a: a, b: b, removed: make([]bool, len(a)), added: make([]bool, len(b)), cost: cost}
	d.compare(0, len(a), 0, len(b))
	return d.removed, d.added
}

func (d *differ) compare(a0, a1, b0, b1 int) {
	for a0 < a1 && b0 < b1 && d.a[a0] == d.b[b0] {
		a0++
		b0++
	}
	for a0 < a1 && b0 < b1 && d.a[a1-1] == d.b[b1-1] {
		a1--
		b1--
	}
	switch {
	case a0 == a1:
		for i := b0; i < b1; i++ {
			d.added[i] = true
		}
		return
	case b0 == b1:
		for i := a0; i < a1; i++ {
			d.removed[i] = true
		}
		return
	}
	if (a1-a0)+(b1-b0) > anchorAbove {
		if as := d.anchors(a0, a1, b0, b1); len(as) > 0 {
			i, j := a0, b0
			for _, an := range as {
				d.compare(i, an.i, j, an.j)
				i, j = an.i+1, an.j+1
			}
			d.compare(i, a1, j, b1)
			return
		}
	}
	x, y, ok := d.bisect(a0, a1, b0, b1)
	if !ok || (x == a0 && y == b0) || (x == a1 && y == b1) {
		for i := a0; i < a1; i++ {
			d.removed[i] = true
		}
		for i := b0; i < b1; i++ {
			d.added[i] = true
		}
		return
	}
	d.compare(a0, x, b0, y)
	d.compare(x, a1, y, b1)
}

// bisect finds the middle snake of a[a0:a1] against b[b0:b1] and returns
// a point of it (absolute indexes) that lies on a shortest edit path; ok
// is false when there is none within d.cost.
func (d *differ) bisect(a0, a1, b0, b1 int) (x, y int, ok bool) {
	n, m := a1-a0, b1-b0
	maxD := (n + m + 1) / 2
	off := maxD + 1
	size := 2*maxD + 3
	if cap(d.v1) < size {
		d.v1, d.v2 = make([]int, size), make([]int, size)
	}
	v1, v2 := d.v1[:size], d.v2[:size]
	for i := range v1 {
		v1[i], v2[i] = -1, -1
	}
	v1[off+1], v2[off+1] = 0, 0
	delta := n - m
	front := delta%2 != 0
	var k1start, k1end, k2start, k2end int
	for D := 0; D < maxD && D <= d.cost; D++ {
		for k1 := -D + k1start; k1 <= D-k1end; k1 += 2 {
			i := off + k1
			var x1 int
			if k1 == -D || (k1 != D && v1[i-1] < v1[i+1]) {
				x1 = v1[i+1]
			} else {
				x1 = v1[i-1] + 1
			}
			y1 := x1 - k1
			for x1 < n && y1 < m && d.a[a0+x1] == d.b[b0+y1] {
				x1++
				y1++
			}
			v1[i] = x1
			switch {
			case x1 > n:
				k1end += 2
			case y1 > m:
				k1start += 2
			case front:
				j := off + delta - k1
				if j >= 0 && j < size && v2[j] != -1 && x1 >= n-v2[j] {
					return a0 + x1, b0 + y1, true
				}
			}
		}
		for k2 := -D + k2start; k2 <= D-k2end; k2 += 2 {
			i := off + k2
			var x2 int
			if k2 == -D || (k2 != D && v2[i-1] < v2[i+1]) {
				x2 = v2[i+1]
			} else {
				x2 = v2[i-1] + 1
			}
			y2 := x2 - k2
			for x2 < n && y2 < m && d.a[a1-x2-1] == d.b[b1-y2-1] {
				x2++
				y2++
			}
			v2[i] = x2
			switch {
			case x2 > n:
				k2end += 2
			case y2 > m:
				k2start += 2
			case !front:
				j := off + delta - k2
				if j >= 0 && j < size && v1[j] != -1 {
					x1 := v1[j]
					y1 := x1 - (j - off)
					if x1 >= n-x2 {
						return a0 + x1, b0 + y1, true
					}
				}
			}
		}
	}
	return 0, 0, false
}

// anchor is a line that occurs once in a region on each side.
type anchor struct{ i, j int }

// anchors are the lines that occur exactly once in a[a0:a1] and once in
// b[b0:b1], the longest run of them in the same order on both sides.
func (d *differ) anchors(a0, a1, b0, b1 int) []anchor {
	type seen struct{ na, nb, i, j int }
	count := map[int]*seen{}
	for i := a0; i < a1; i++ {
		s := count[d.a[i]]
		if s == nil {
			s = &seen{}
			count[d.a[i]] = s
		}
		s.na, s.i = s.na+1, i
	}
	for j := b0; j < b1; j++ {
		if s := count[d.b[j]]; s != nil {
			s.nb, s.j = s.nb+1, j
		}
	}
	var pairs []anchor // in a's order
	for i := a0; i < a1; i++ {
		if s := count[d.a[i]]; s.na == 1 && s.nb == 1 {
			pairs = append(pairs, anchor{i, s.j})
		}
	}
	// The longest increasing run of j (patience sorting, O(k log k)).
	tails := []int{} // tails[k]: index in pairs of the smallest tail of a run of k+1
	prev := make([]int, len(pairs))
	for p, an := range pairs {
		lo, hi := 0, len(tails)
		for lo < hi {
			mid := (lo + hi) / 2
			if pairs[tails[mid]].j < an.j {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		prev[p] = -1
		if lo > 0 {
			prev[p] = tails[lo-1]
		}
		if lo == len(tails) {
			tails = append(tails, p)
		} else {
			tails[lo] = p
		}
	}
	if len(tails) == 0 {
		return nil
	}
	out := make([]anchor, len(tails))
	for k, p := len(tails)-1, tails[len(tails)-1]; k >= 0; k, p = k-1, prev[p] {
		out[k] = pairs[p]
	}
	return out
}
