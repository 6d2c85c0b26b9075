package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"
)

// MaxTranscriptBytes bounds a stored transcript before compression. A larger one is not
// stored (the run still is): the probe bounds what it records, so this only stops a runaway.
const MaxTranscriptBytes = 16 << 20

const encodingGzip = "gzip"

// compress gzips a transcript, reusing writers from the store's pool: a flate writer is large
// enough that making one per run shows in the write path's profile.
func (s *Store) compress(raw []byte) ([]byte, error) {
	zw, _ := s.gzips.Get().(*gzip.Writer)
	if zw == nil {
		var err error
		if zw, err = gzip.NewWriterLevel(io.Discard, gzip.BestSpeed); err != nil {
			return nil, fmt.Errorf("store: gzip: %w", err)
		}
	}
	defer s.gzips.Put(zw)
	var buf bytes.Buffer
	buf.Grow(len(raw)/4 + 64)
	zw.Reset(&buf)
	if _, err := zw.Write(raw); err != nil {
		return nil, fmt.Errorf("store: gzip: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("store: gzip: %w", err)
	}
	return buf.Bytes(), nil
}

// Transcript returns the decompressed transcript of a run, or ErrNotFound when the run has
// none (the transcript policy did not keep it, it was too large, or it has aged out).
func (s *Store) Transcript(ctx context.Context, id RunID) ([]byte, error) {
	var encoding string
	var body []byte
	err := s.pool.QueryRow(ctx, `SELECT t.encoding, t.body FROM runs r JOIN transcripts t ON t.key = r.transcript_key
		WHERE r.id = $1`, id).Scan(&encoding, &body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("transcript of run %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: transcript of run %s: %w", id, err)
	}
	if encoding != encodingGzip {
		return nil, fmt.Errorf("store: transcript of run %s: unknown encoding %q", id, encoding)
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("store: transcript of run %s: %w", id, err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, MaxTranscriptBytes+1))
	if err != nil {
		return nil, fmt.Errorf("store: transcript of run %s: %w", id, err)
	}
	if len(raw) > MaxTranscriptBytes {
		return nil, fmt.Errorf("store: transcript of run %s: larger than %d bytes", id, MaxTranscriptBytes)
	}
	return raw, nil
}
