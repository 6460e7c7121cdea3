package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/require"
)

// A reader of bbolt's page format (go.etcd.io/bbolt/internal/common),
// enough to say which tree owns each page of a file: a page header is
// id u64, flags u16, count u16, overflow u32; a branch element is pos u32,
// ksize u32, pgid u64; a leaf element is flags u32, pos u32, ksize u32,
// vsize u32, and a bucket's value is its root pgid u64 and sequence u64,
// followed by the bucket's page when it is held inline (root 0).
const (
	pageHeader     = 16
	pageElement    = 16
	branchPageFlag = 0x01
	leafPageFlag   = 0x02
	bucketLeafFlag = 0x01
)

// pageOwners maps every page in use in the bbolt file at path to the tree
// that holds it ("" is the root tree of bucket names, "meta", "freelist"),
// read from the file as the last commit left it.
func pageOwners(t testing.TB, path string) map[uint64]string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	psize := int(binary.LittleEndian.Uint32(data[pageHeader+8:])) // meta: magic, version, pageSize
	meta := func(i int) []byte { return data[i*psize+pageHeader:] }
	txid := func(m []byte) uint64 { return binary.LittleEndian.Uint64(m[16+16+8+8:]) }
	m := meta(0)
	if txid(meta(1)) > txid(m) {
		m = meta(1)
	}
	owners := map[uint64]string{}
	var walk func(page []byte, id uint64, tree string)
	walk = func(page []byte, id uint64, tree string) {
		flags := binary.LittleEndian.Uint16(page[8:])
		count := int(binary.LittleEndian.Uint16(page[10:]))
		overflow := uint64(binary.LittleEndian.Uint32(page[12:]))
		if id != 0 { // 0: a page held inline in its parent's leaf
			for o := range overflow + 1 {
				owners[id+o] = tree
			}
		}
		for i := range count {
			el := page[pageHeader+i*pageElement:]
			switch {
			case flags&branchPageFlag != 0:
				pos, ksize := binary.LittleEndian.Uint32(el), binary.LittleEndian.Uint32(el[4:])
				_ = el[pos : pos+ksize]
				child := binary.LittleEndian.Uint64(el[8:])
				walk(data[int(child)*psize:], child, tree)
			case flags&leafPageFlag != 0:
				lflags, pos := binary.LittleEndian.Uint32(el), binary.LittleEndian.Uint32(el[4:])
				ksize, vsize := binary.LittleEndian.Uint32(el[8:]), binary.LittleEndian.Uint32(el[12:])
				if lflags&bucketLeafFlag == 0 {
					continue
				}
				name := string(el[pos : pos+ksize])
				if tree != "" {
					name = tree + "/" + name
				}
				v := el[pos+ksize : pos+ksize+vsize]
				if root := binary.LittleEndian.Uint64(v); root != 0 {
					walk(data[int(root)*psize:], root, name)
				} else {
					walk(v[16:], 0, name)
				}
			}
		}
	}
	root := binary.LittleEndian.Uint64(m[16:]) // magic, version, pageSize, flags, then the root bucket
	walk(data[int(root)*psize:], root, "")
	if fl := binary.LittleEndian.Uint64(m[16+16:]); fl != ^uint64(0) {
		overflow := uint64(binary.LittleEndian.Uint32(data[int(fl)*psize+12:]))
		for o := range overflow + 1 {
			owners[fl+o] = "freelist"
		}
	}
	return owners
}

// pagesWritten counts, by tree, the pages of after that before did not
// hold: bbolt copies every page a commit changes to a new page id, so
// these are the pages the commit wrote (plus one meta page each).
func pagesWritten(before, after map[uint64]string) map[string]int {
	n := map[string]int{"meta": 1}
	for id, tree := range after {
		if _, ok := before[id]; !ok {
			n[tree]++
		}
	}
	return n
}

// prefillStore fills db with n questions (half answered) in 10 runs, from
// 16 writers at once (BenchmarkWriteBytes, BenchmarkWritePages), and
// returns the service.
func prefillStore(b *testing.B, db *DB, n int) *service.Service {
	b.Helper()
	svc := service.NewService(db, service.ServiceConfig{Notifier: notify.New()})
	ctx := principaltest.As(context.Background(), "api:bench")
	person := principaltest.As(context.Background(), "slack:U024BE7LH")
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := g; i < n; i += 16 {
				q, _, err := svc.Questions.Create(ctx, fmt.Sprintf("job-%d", i%10), benchQuestion)
				if err == nil && i%2 == 0 {
					_, err = svc.Questions.Answer(person, q.ID, hitl.Response{Value: "deploy"})
				}
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return svc
}

// BenchmarkWritePages counts the pages a lone create and its answer write,
// by the tree that holds them, on the store BenchmarkWriteBytes uses
// (1,000 questions, half answered, 10 runs): the page count per tree
// behind that benchmark's bytes. Metrics are pages per write, by tree.
func BenchmarkWritePages(b *testing.B) {
	path := filepath.Join(b.TempDir(), "hitl.db")
	db, err := Open(path)
	require.NoError(b, err)
	defer db.Close()
	svc := prefillStore(b, db, 1000)
	ctx := principaltest.As(context.Background(), "api:bench")
	person := principaltest.As(context.Background(), "slack:U024BE7LH")
	create, answer := map[string]int{}, map[string]int{}
	i := 0
	for b.Loop() {
		i++
		before := pageOwners(b, path)
		q, _, err := svc.Questions.Create(ctx, fmt.Sprintf("job-%d", i%10), benchQuestion)
		require.NoError(b, err)
		mid := pageOwners(b, path)
		_, err = svc.Questions.Answer(person, q.ID, hitl.Response{Value: "deploy"})
		require.NoError(b, err)
		after := pageOwners(b, path)
		for tree, n := range pagesWritten(before, mid) {
			create[tree] += n
		}
		for tree, n := range pagesWritten(mid, after) {
			answer[tree] += n
		}
	}
	report := func(what string, by map[string]int) {
		total := 0
		trees := make([]string, 0, len(by))
		for tree, n := range by {
			total += n
			trees = append(trees, tree)
		}
		sort.Slice(trees, func(a, c int) bool { return by[trees[a]] > by[trees[c]] })
		var line []string
		for _, tree := range trees {
			name := tree
			if name == "" {
				name = "(root)"
			}
			line = append(line, fmt.Sprintf("%s %.1f", name, float64(by[tree])/float64(i)))
		}
		b.Logf("%s: %.1f pages: %s", what, float64(total)/float64(i), strings.Join(line, ", "))
		b.ReportMetric(float64(total)/float64(i), what+"-pages")
	}
	report("create", create)
	report("answer", answer)
}
