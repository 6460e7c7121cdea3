package store

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// BenchmarkOpenFreelist measures opening a file of 100,000 questions
// (234 MB with their indexes, in the page cache) two ways, in one
// loop: with the freelist written at each commit (read back from its page
// at open) and without (NoFreelistSync, as etcd runs bbolt: rebuilt at
// open by walking every page of the file). Each side opens its own copy,
// last committed the way it opens.
func BenchmarkOpenFreelist(b *testing.B) {
	dir := b.TempDir()
	synced := filepath.Join(dir, "synced.db")
	db, err := Open(synced)
	require.NoError(b, err)
	loadPending(b, db, 100_000, time.Now().UTC())
	require.NoError(b, db.Close())
	scanned := filepath.Join(dir, "scanned.db")
	copyFile(b, synced, scanned)
	sides := []struct {
		path string
		opts *bolt.Options
		took time.Duration
	}{
		{synced, &bolt.Options{FreelistType: bolt.FreelistMapType}, 0},
		{scanned, &bolt.Options{FreelistType: bolt.FreelistMapType, NoFreelistSync: true}, 0},
	}
	for i := range sides { // leave each file as its side commits it
		bdb, err := bolt.Open(sides[i].path, 0o600, sides[i].opts)
		require.NoError(b, err)
		require.NoError(b, bdb.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put([]byte("bench"), []byte{1}) }))
		require.NoError(b, bdb.Close())
	}
	st, err := os.Stat(synced)
	require.NoError(b, err)
	for b.Loop() {
		for i := range sides {
			start := time.Now()
			bdb, err := bolt.Open(sides[i].path, 0o600, sides[i].opts)
			require.NoError(b, err)
			sides[i].took += time.Since(start)
			require.NoError(b, bdb.Close())
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(st.Size())/1e6, "file-MB")
	b.ReportMetric(sides[0].took.Seconds()*1e3/n, "synced-open-ms")
	b.ReportMetric(sides[1].took.Seconds()*1e3/n, "scanned-open-ms")
}

func copyFile(b *testing.B, from, to string) {
	b.Helper()
	src, err := os.Open(from)
	require.NoError(b, err)
	defer src.Close()
	dst, err := os.Create(to)
	require.NoError(b, err)
	_, err = io.Copy(dst, src)
	require.NoError(b, err)
	require.NoError(b, dst.Close())
}
