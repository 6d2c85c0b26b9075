package store

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// RunID identifies a run. The writer makes it before the first write attempt, so that a
// retried batch carries the same ids and is not stored twice. It is a UUID version 7: the
// leading bits are the start time in milliseconds, which keeps the id indexes append-mostly.
type RunID [16]byte

// NewRunID returns a fresh id for a run started at start.
func NewRunID(start time.Time) RunID {
	var id RunID
	_, _ = rand.Read(id[6:]) // never fails (crypto/rand)
	ms := uint64(start.UnixMilli())
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], ms)
	copy(id[:6], ts[2:])
	id[6] = 0x70 | id[6]&0x0f // version 7
	id[8] = 0x80 | id[8]&0x3f // RFC 9562 variant
	return id
}

// SlotRunID returns the id of the run of a server's slot in a region: every probe of the same
// slot, by whichever worker, with or without the database, gets the same id, and the store
// keeps one run per id (WriteRuns), so a slot probed twice is stored once. The leading bits
// are the slot's due time in milliseconds, as NewRunID's are the start time; the rest is a
// hash of the slot (version 8, a custom UUID), to the microsecond the database keeps of due.
func SlotRunID(serverID int64, region string, due time.Time) RunID {
	var key [16]byte
	binary.BigEndian.PutUint64(key[:8], uint64(serverID))
	binary.BigEndian.PutUint64(key[8:], uint64(due.UnixMicro()))
	h := sha256.New()
	h.Write(key[:])
	h.Write([]byte(region))
	var id RunID
	copy(id[6:], h.Sum(nil))
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], uint64(due.UnixMilli()))
	copy(id[:6], ts[2:])
	id[6] = 0x80 | id[6]&0x0f // version 8
	id[8] = 0x80 | id[8]&0x3f // RFC 9562 variant
	return id
}

// ParseRunID reads the canonical form 8-4-4-4-12 hex digits.
func ParseRunID(s string) (RunID, error) {
	var id RunID
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return id, fmt.Errorf("store: run id %q is not a UUID", s)
	}
	hexDigits := s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:36]
	if _, err := hex.Decode(id[:], []byte(hexDigits)); err != nil {
		return RunID{}, fmt.Errorf("store: run id %q: %w", s, err)
	}
	return id, nil
}

// String is the canonical UUID form.
func (id RunID) String() string {
	var b [36]byte
	hex.Encode(b[0:8], id[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], id[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], id[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], id[8:10])
	b[23] = '-'
	hex.Encode(b[24:], id[10:])
	return string(b[:])
}

// time is the time the id carries: a run's start (NewRunID) or its slot's due time
// (SlotRunID), to the millisecond.
func (id RunID) time() time.Time {
	var ts [8]byte
	copy(ts[2:], id[:6])
	return time.UnixMilli(int64(binary.BigEndian.Uint64(ts[:])))
}

// IsZero reports an unset id.
func (id RunID) IsZero() bool { return id == RunID{} }

// UUIDValue and ScanUUID let pgx read and write a RunID as a Postgres uuid.
func (id RunID) UUIDValue() (pgtype.UUID, error) { return pgtype.UUID{Bytes: id, Valid: true}, nil }

func (id *RunID) ScanUUID(v pgtype.UUID) error {
	if !v.Valid {
		return fmt.Errorf("store: NULL run id")
	}
	*id = v.Bytes
	return nil
}

var (
	_ pgtype.UUIDValuer  = RunID{}
	_ pgtype.UUIDScanner = (*RunID)(nil)
)
