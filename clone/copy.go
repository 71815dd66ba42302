package clone

import (
	"context"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// chunk is one CLONE READ: n bytes of file at off.
type chunk struct {
	file int
	off  int64
	n    int64
}

// copyFiles pulls every file of the snapshot into staging over
// opts.Parallel connections (first is the one that took the snapshot):
// the chunks are handed out in order, each checked against its CRC-32C
// and written at its offset; then each file is synced and its size
// checked. The pace (clone_max_data_bandwidth) is shared by all.
func copyFiles(ctx context.Context, first0 *client, man *Manifest, staging string, opts FetchOptions) error {
	files, err := createFiles(man, staging)
	defer closeFiles(files)
	if err != nil {
		return err
	}
	var chunks []chunk
	for i, f := range man.Files {
		for off := int64(0); off < f.Size; off += int64(opts.ChunkSize) {
			chunks = append(chunks, chunk{file: i, off: off, n: min(int64(opts.ChunkSize), f.Size-off)})
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		next  int
		pace  Pacer
		first error
	)
	take := func() (chunk, time.Duration, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next >= len(chunks) || first != nil {
			return chunk{}, 0, false
		}
		c := chunks[next]
		next++
		return c, pace.Wait(opts.Clock.Now(), c.n, opts.MaxBandwidth()), true
	}
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
		cancel()
	}
	worker := func(c *client) {
		for {
			ch, wait, ok := take()
			if !ok {
				return
			}
			if wait > 0 {
				t := time.NewTimer(wait)
				select {
				case <-ctx.Done():
					t.Stop()
					fail(ctx.Err())
					return
				case <-t.C:
				}
			}
			network, err := c.readChunk(man, ch, files[ch.file])
			if err != nil {
				fail(err)
				return
			}
			opts.Progress.add(opts.Clock.Now(), ch.n, network)
		}
	}
	var wg sync.WaitGroup
	workers := min(opts.Parallel, max(len(chunks), 1))
	for i := 1; i < workers; i++ {
		c, err := dial(ctx, opts)
		if err != nil {
			fail(err)
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.close()
			worker(c)
		}()
	}
	worker(first0)
	wg.Wait()
	if first != nil {
		return first
	}
	for i, f := range man.Files {
		if err := files[i].Sync(); err != nil {
			return fmt.Errorf("clone: sync %s: %w", f.Name, err)
		}
		if err := checkSize(files[i], f); err != nil {
			return err
		}
	}
	return nil
}

// createFiles creates the snapshot's files (empty) under staging; the
// caller closes what it returns, even with an error.
func createFiles(man *Manifest, staging string) ([]*os.File, error) {
	files := make([]*os.File, len(man.Files))
	for i, f := range man.Files {
		dst := filepath.Join(staging, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
			return files, fmt.Errorf("clone: %w", err)
		}
		out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
		if err != nil {
			return files, fmt.Errorf("clone: %w", err)
		}
		files[i] = out
	}
	return files, nil
}

func closeFiles(files []*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}

// checkSize: a copied file holds exactly the bytes the manifest listed.
func checkSize(out *os.File, f File) error {
	st, err := out.Stat()
	if err != nil {
		return fmt.Errorf("clone: %w", err)
	}
	if st.Size() != f.Size {
		return &ProtocolError{Msg: fmt.Sprintf("%s holds %d bytes, the donor listed %d", f.Name, st.Size(), f.Size)}
	}
	return nil
}

// readChunk reads one chunk from the donor into out at its offset and
// returns the bytes that crossed the network for it.
func (c *client) readChunk(man *Manifest, ch chunk, out *os.File) (int64, error) {
	name := man.Files[ch.file].Name
	q := fmt.Sprintf("CLONE READ '%s' FILE '%s' OFFSET %d LENGTH %d", man.ID, name, ch.off, ch.n)
	if c.opts.Compress {
		q += " COMPRESSED"
	}
	rows, err := c.exec(q, 1)
	if err != nil {
		return 0, err
	}
	if len(rows) != 1 || len(rows[0]) != 2 {
		return 0, &ProtocolError{Msg: "CLONE READ returned no chunk"}
	}
	data := rows[0][0]
	network := int64(len(data))
	if c.opts.Compress {
		if data, err = Decompress(data, ch.n); err != nil {
			return 0, &ProtocolError{Msg: fmt.Sprintf("chunk of %s at %d: %v", name, ch.off, err)}
		}
	}
	sum, err := strconv.ParseUint(string(rows[0][1]), 10, 32)
	if err != nil || int64(len(data)) != ch.n || crc32.Checksum(data, castagnoli) != uint32(sum) {
		return 0, &ProtocolError{Msg: fmt.Sprintf("chunk of %s at %d: %d bytes (want %d) or a checksum mismatch", name, ch.off, len(data), ch.n)}
	}
	if _, err := out.WriteAt(data, ch.off); err != nil {
		return 0, fmt.Errorf("clone: write %s: %w", name, err)
	}
	return network, nil
}
