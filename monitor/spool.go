package monitor

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// A spool file is a queue of run records on disk: a header holding the offset of the first
// record not yet written to the database, then records appended one after the other, each
// as length, CRC-32C and the record's JSON. Records before the offset are done; the file is
// cut back to its header once all are. A crash can leave a torn last record, which the next
// open cuts off; it can also leave the offset behind (it is not synced), which only means
// records are written again, and their ids make that harmless.
const (
	spoolMagic      = "MCPWSPL1"
	spoolHeaderSize = 16
	recordHeadSize  = 8
	// maxSpoolRecord bounds one record: a transcript is at most store.MaxTranscriptBytes,
	// which JSON's base64 grows by a third.
	maxSpoolRecord = 64 << 20
)

// ErrSpoolBusy means another live process holds the spool file.
var ErrSpoolBusy = errors.New("spool file is in use by another process")

// ErrSpoolFull means the spool reached its size limit; the record was dropped.
var ErrSpoolFull = errors.New("spool is full")

// spoolChecksum is CRC-32C. Its table is made on first use (the crc32 package keeps it),
// not at package init: `prober check` links this package and never spools.
func spoolChecksum(b []byte) uint32 { return crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)) }

type spool struct {
	f        *os.File
	path     string
	readOff  int64 // first record not yet consumed
	writeOff int64 // end of the last whole record
	count    int   // records in [readOff, writeOff)
}

// openSpool opens (or creates) a spool file and locks it for this process. torn is the
// number of bytes of a torn last record that were cut off.
func openSpool(path string) (s *spool, torn int64, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, 0, fmt.Errorf("spool: %w", err)
	}
	if err := lockSpool(f); err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("spool %s: %w", path, err)
	}
	s = &spool{f: f, path: path, readOff: spoolHeaderSize, writeOff: spoolHeaderSize}
	if torn, err = s.recover(); err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("spool %s: %w", path, err)
	}
	return s, torn, nil
}

// lockSpool locks f, trying for a moment: a child process forked by this process (a stdio
// server being started) shares the lock of a file it inherited until it execs, which can
// make a spool this process just closed look held.
func lockSpool(f *os.File) error {
	var err error
	for range 20 {
		if err = lockFile(f); !errors.Is(err, ErrSpoolBusy) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
	return err
}

// recover reads the header and walks the records after the offset to find the last whole one.
func (s *spool) recover() (int64, error) {
	info, err := s.f.Stat()
	if err != nil {
		return 0, err
	}
	size := info.Size()
	var head [spoolHeaderSize]byte
	if size < spoolHeaderSize {
		return 0, s.reset()
	}
	if _, err := s.f.ReadAt(head[:], 0); err != nil {
		return 0, err
	}
	if string(head[:8]) != spoolMagic {
		return 0, fmt.Errorf("not a spool file (no %s header)", spoolMagic)
	}
	off := int64(binary.BigEndian.Uint64(head[8:]))
	if off < spoolHeaderSize || off > size {
		off = spoolHeaderSize // an offset that cannot be right: write everything again
	}
	s.readOff, s.writeOff = off, off
	for s.writeOff < size {
		n, err := s.recordAt(s.writeOff, size, nil)
		if err != nil {
			break
		}
		s.writeOff += n
		s.count++
	}
	torn := size - s.writeOff
	if torn > 0 {
		if err := s.f.Truncate(s.writeOff); err != nil {
			return 0, err
		}
	}
	if s.count == 0 {
		return torn, s.reset()
	}
	return torn, nil
}

// recordAt checks the record at off (in a file of size bytes) and returns its length with
// head; into, when not nil, receives the payload.
func (s *spool) recordAt(off, size int64, into *[]byte) (int64, error) {
	var head [recordHeadSize]byte
	if off+recordHeadSize > size {
		return 0, io.ErrUnexpectedEOF
	}
	if _, err := s.f.ReadAt(head[:], off); err != nil {
		return 0, err
	}
	n := int64(binary.BigEndian.Uint32(head[:4]))
	if n > maxSpoolRecord || off+recordHeadSize+n > size {
		return 0, io.ErrUnexpectedEOF
	}
	buf := make([]byte, n)
	if _, err := s.f.ReadAt(buf, off+recordHeadSize); err != nil {
		return 0, err
	}
	if spoolChecksum(buf) != binary.BigEndian.Uint32(head[4:]) {
		return 0, errors.New("checksum mismatch")
	}
	if into != nil {
		*into = buf
	}
	return recordHeadSize + n, nil
}

// reset empties the file down to its header.
func (s *spool) reset() error {
	if err := s.f.Truncate(spoolHeaderSize); err != nil {
		return err
	}
	s.readOff, s.writeOff, s.count = spoolHeaderSize, spoolHeaderSize, 0
	return s.writeHeader()
}

func (s *spool) writeHeader() error {
	var head [spoolHeaderSize]byte
	copy(head[:8], spoolMagic)
	binary.BigEndian.PutUint64(head[8:], uint64(s.readOff))
	_, err := s.f.WriteAt(head[:], 0)
	return err
}

// size is the file's length.
func (s *spool) size() int64 { return s.writeOff }

// encodeRecord makes one record's bytes. A transcript the store would not keep is dropped
// here too, so that no record outgrows maxSpoolRecord.
func encodeRecord(rec store.RunRecord) ([]byte, error) {
	if len(rec.Transcript) > store.MaxTranscriptBytes {
		rec.Transcript = nil
	}
	payload, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("encode run %s: %w", rec.ID, err)
	}
	out := make([]byte, recordHeadSize, recordHeadSize+len(payload))
	binary.BigEndian.PutUint32(out[:4], uint32(len(payload)))
	binary.BigEndian.PutUint32(out[4:], spoolChecksum(payload))
	return append(out, payload...), nil
}

// append writes records after the last one and syncs them to disk, all or none (limit
// bounds the file's size). ends[i] is the offset just after record i.
func (s *spool) append(recs []store.RunRecord, limit int64) (ends []int64, err error) {
	var buf []byte
	for _, r := range recs {
		b, err := encodeRecord(r)
		if err != nil {
			return nil, err
		}
		buf = append(buf, b...)
		ends = append(ends, s.writeOff+int64(len(buf)))
	}
	if limit > 0 && s.writeOff+int64(len(buf)) > limit {
		return nil, fmt.Errorf("%w (%d bytes)", ErrSpoolFull, limit)
	}
	if _, err := s.f.WriteAt(buf, s.writeOff); err != nil {
		_ = s.f.Truncate(s.writeOff) // whatever was written is no record
		return nil, fmt.Errorf("spool: write: %w", err)
	}
	if err := s.f.Sync(); err != nil {
		_ = s.f.Truncate(s.writeOff)
		return nil, fmt.Errorf("spool: sync: %w", err)
	}
	s.writeOff += int64(len(buf))
	s.count += len(recs)
	return ends, nil
}

// read returns up to maxRuns records (and about maxBytes) from the offset on, without
// consuming them: n counts the records read, undecodable ones included, and end is the
// offset after them, for consume.
func (s *spool) read(maxRuns int, maxBytes int64) (recs []store.RunRecord, n int, end int64, err error) {
	end = s.readOff
	var bytes int64
	for end < s.writeOff && n < maxRuns && (n == 0 || bytes < maxBytes) {
		var payload []byte
		size, err := s.recordAt(end, s.writeOff, &payload)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("spool: read at %d: %w", end, err)
		}
		end += size
		bytes += size
		n++
		var rec store.RunRecord
		if json.Unmarshal(payload, &rec) != nil {
			continue // an undecodable record would fail forever: it is consumed unread
		}
		recs = append(recs, rec)
	}
	return recs, n, end, nil
}

// consume marks n records up to end as written; an emptied file is cut back.
func (s *spool) consume(n int, end int64) error {
	s.readOff = end
	s.count -= n
	if s.readOff >= s.writeOff {
		return s.reset()
	}
	return s.writeHeader()
}

func (s *spool) close() error { return s.f.Close() } // closing drops the lock

// remove deletes the file (while still holding its lock) and closes it.
func (s *spool) remove() error {
	err := os.Remove(s.path)
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}
