package monitor

import (
	"bytes"
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

// A spool file is a queue of run records on disk: a header naming the database the runs
// belong to and holding the offset of the first record not yet written to it, then records
// appended one after the other, each as length, CRC-32C and the record's JSON. Records before
// the offset are done; the file is cut back to its header once all are. A crash can leave a
// torn last record, which the next open cuts off; it can also leave the offset behind (it is
// not synced), which only means records are written again, and their ids make that harmless.
// A record damaged in the middle of the file (a bad sector, a stray write) is skipped: the
// records after it are found again by their checksums and written.
//
// The header: the magic (8 bytes), the offset (8), the length of the database's identity (2)
// and the identity (store.Identity), padded to spoolHeaderSize. Runs name servers by their
// ids in one database; a spool of another database, or of a version that did not record it
// (magic MCPWSPL1), is never opened as this buffer's own nor taken over.
const (
	spoolMagic       = "MCPWSPL2"
	spoolMagicLegacy = "MCPWSPL1" // before the database was recorded: 16-byte header
	spoolHeaderSize  = 256
	spoolLegacyHead  = 16
	maxSpoolIdentity = spoolHeaderSize - 18
	recordHeadSize   = 8
	// maxSpoolRecord bounds one record: a transcript is at most store.MaxTranscriptBytes,
	// which JSON's base64 grows by a third.
	maxSpoolRecord = 64 << 20
)

// ErrSpoolBusy means another live process holds the spool file.
var ErrSpoolBusy = errors.New("spool file is in use by another process")

// ErrSpoolFull means the spool reached its size limit; the record was dropped.
var ErrSpoolFull = errors.New("spool is full")

// ErrSpoolForeign means the spool file belongs to another database, or does not say which
// database it belongs to; it is left as it is.
var ErrSpoolForeign = errors.New("spool file belongs to another database")

// spoolChecksum is CRC-32C. Its table is made on first use (the crc32 package keeps it),
// not at package init: `prober check` links this package and never spools.
func spoolChecksum(b []byte) uint32 { return crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)) }

type spool struct {
	f        *os.File
	path     string
	identity string
	readOff  int64 // first record not yet consumed
	writeOff int64 // end of the last whole record
	count    int   // records in [readOff, writeOff)
	// skips maps the offset of a corrupt record to the offset of the next whole one.
	skips map[int64]int64
	// damaged are the records read found damaged, not reported yet.
	damaged []corruptSpan
}

// spoolRecovery is what opening a spool found wrong.
type spoolRecovery struct {
	torn    int64         // bytes of a torn last record, cut off
	corrupt []corruptSpan // damaged records skipped
}

type corruptSpan struct{ off, bytes int64 }

// openSpool opens (or creates) the spool file of the database identity and locks it for this
// process. A file of another database is closed again unchanged, with ErrSpoolForeign.
func openSpool(path, identity string) (s *spool, rec spoolRecovery, err error) {
	if identity == "" || len(identity) > maxSpoolIdentity {
		return nil, rec, fmt.Errorf("spool: database identity %q: empty or longer than %d bytes", identity, maxSpoolIdentity)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, rec, fmt.Errorf("spool: %w", err)
	}
	if err := lockSpool(f); err != nil {
		f.Close()
		return nil, rec, fmt.Errorf("spool %s: %w", path, err)
	}
	s = &spool{f: f, path: path, identity: identity, readOff: spoolHeaderSize, writeOff: spoolHeaderSize}
	if rec, err = s.recover(); err != nil {
		f.Close()
		return nil, rec, fmt.Errorf("spool %s: %w", path, err)
	}
	return s, rec, nil
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

// recover reads the header, refuses a file of another database before changing anything in
// it, and walks the records after the offset to find the last whole one, skipping damaged
// ones that whole records follow.
func (s *spool) recover() (rec spoolRecovery, err error) {
	info, err := s.f.Stat()
	if err != nil {
		return rec, err
	}
	size := info.Size()
	if size < int64(len(spoolMagic)) {
		return rec, s.reset() // nothing was ever written: a new file
	}
	head := make([]byte, min(size, spoolHeaderSize))
	if _, err := s.f.ReadAt(head, 0); err != nil {
		return rec, err
	}
	if string(head[:8]) == spoolMagicLegacy && size <= spoolLegacyHead {
		return rec, s.reset() // a spool of before that holds no run: nothing to misfile
	}
	if err := belongsTo(head, s.identity); err != nil {
		return rec, err
	}
	off := int64(binary.BigEndian.Uint64(head[8:16]))
	if off < spoolHeaderSize || off > size {
		off = spoolHeaderSize // an offset that cannot be right: write everything again
	}
	s.readOff = off
	for off < size {
		n, err := s.recordAt(off, size, nil)
		if err == nil {
			off += n
			s.count++
			continue
		}
		next, ok := s.nextWhole(off, size)
		if !ok {
			break // no whole record after it: a torn tail
		}
		if s.skips == nil {
			s.skips = map[int64]int64{}
		}
		s.skips[off] = next
		rec.corrupt = append(rec.corrupt, corruptSpan{off: off, bytes: next - off})
		off = next
	}
	s.writeOff = off
	rec.torn = size - s.writeOff
	if rec.torn > 0 {
		if err := s.f.Truncate(s.writeOff); err != nil {
			return rec, err
		}
	}
	if s.count == 0 {
		return rec, s.reset()
	}
	return rec, nil
}

// belongsTo checks that a spool file's header (its first spoolHeaderSize bytes, or all of a
// shorter file) names the database identity.
func belongsTo(head []byte, identity string) error {
	switch {
	case len(head) < len(spoolMagic):
		return fmt.Errorf("%w: no header", ErrSpoolForeign)
	case string(head[:8]) == spoolMagicLegacy:
		return fmt.Errorf("%w: written before spool files recorded their database", ErrSpoolForeign)
	case string(head[:8]) != spoolMagic:
		return fmt.Errorf("not a spool file (no %s header)", spoolMagic)
	case len(head) < spoolHeaderSize:
		return fmt.Errorf("%w: its header is cut short", ErrSpoolForeign)
	}
	idLen := int(binary.BigEndian.Uint16(head[16:18]))
	if idLen > maxSpoolIdentity {
		return fmt.Errorf("%w: its header is damaged", ErrSpoolForeign)
	}
	if got := string(head[18 : 18+idLen]); got != identity {
		return fmt.Errorf("%w: it belongs to %q, not %q", ErrSpoolForeign, got, identity)
	}
	return nil
}

// spoolBelongsTo reads a spool file's header without opening it as a spool (nor locking it,
// which would hold off the worker it belongs to): ErrSpoolForeign if it is not of identity.
// An empty file is anyone's.
func spoolBelongsTo(path, identity string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, spoolHeaderSize)
	n, err := io.ReadFull(f, head)
	if n == 0 || n < len(spoolMagic) && errors.Is(err, io.ErrUnexpectedEOF) {
		return nil
	}
	if string(head[:8]) == spoolMagicLegacy && n <= spoolLegacyHead {
		return nil
	}
	return belongsTo(head[:n], identity)
}

// recordMarker is how every record's JSON begins; nextWhole looks for it.
func recordMarker() []byte {
	b, _ := json.Marshal(store.RunRecord{})
	return b[:bytes.IndexByte(b, ':')+1]
}

// nextWhole finds the first whole record after the damaged one at off: where its length
// says the next one starts, else the first place a record's JSON begins whose head and
// checksum hold.
func (s *spool) nextWhole(off, size int64) (int64, bool) {
	var head [recordHeadSize]byte
	if _, err := s.f.ReadAt(head[:], off); err == nil {
		next := off + recordHeadSize + int64(binary.BigEndian.Uint32(head[:4]))
		if next < size {
			if _, err := s.recordAt(next, size, nil); err == nil {
				return next, true
			}
		}
	}
	marker := recordMarker()
	const chunk = 1 << 20
	buf := make([]byte, chunk+len(marker))
	for from := off + recordHeadSize + 1; from < size; from += chunk {
		n, err := s.f.ReadAt(buf, from)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, false
		}
		for i := 0; i < n; {
			j := bytes.Index(buf[i:n], marker)
			if j < 0 {
				break
			}
			at := from + int64(i+j) - recordHeadSize
			if _, err := s.recordAt(at, size, nil); err == nil {
				return at, true
			}
			i += j + 1
		}
	}
	return 0, false
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
	s.readOff, s.writeOff, s.count, s.skips = spoolHeaderSize, spoolHeaderSize, 0, nil
	return s.writeHeader()
}

func (s *spool) writeHeader() error {
	var head [spoolHeaderSize]byte
	copy(head[:8], spoolMagic)
	binary.BigEndian.PutUint64(head[8:16], uint64(s.readOff))
	binary.BigEndian.PutUint16(head[16:18], uint16(len(s.identity)))
	copy(head[18:], s.identity)
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
	var took int64
	for end < s.writeOff && n < maxRuns && (n == 0 || took < maxBytes) {
		if next, ok := s.skips[end]; ok {
			end = next // a damaged record recovery found: not a run
			continue
		}
		var payload []byte
		size, err := s.recordAt(end, s.writeOff, &payload)
		if err != nil {
			// Damaged since it was written or recovered (every record before writeOff was
			// whole then): it costs this record only, or, when no whole record follows it,
			// what cannot be read.
			next, ok := s.nextWhole(end, s.writeOff)
			if !ok {
				next = s.writeOff
			}
			if s.skips == nil {
				s.skips = map[int64]int64{}
			}
			s.skips[end] = next
			s.damaged = append(s.damaged, corruptSpan{off: end, bytes: next - end})
			s.count = n + s.countFrom(next)
			end = next
			continue
		}
		end += size
		took += size
		n++
		var rec store.RunRecord
		if json.Unmarshal(payload, &rec) != nil {
			continue // an undecodable record would fail forever: it is consumed unread
		}
		recs = append(recs, rec)
	}
	return recs, n, end, nil
}

// countFrom counts the whole records from off to the end.
func (s *spool) countFrom(off int64) int {
	n := 0
	for off < s.writeOff {
		if next, ok := s.skips[off]; ok {
			off = next
			continue
		}
		size, err := s.recordAt(off, s.writeOff, nil)
		if err != nil {
			break // read finds it and skips it
		}
		off += size
		n++
	}
	return n
}

// takeDamaged returns the damaged records read found since the last call.
func (s *spool) takeDamaged() []corruptSpan {
	d := s.damaged
	s.damaged = nil
	return d
}

// consume marks n records up to end as written; an emptied file is cut back.
func (s *spool) consume(n int, end int64) error {
	s.readOff = end
	s.count -= n
	if s.readOff >= s.writeOff || s.count <= 0 { // only damaged records may be left
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
