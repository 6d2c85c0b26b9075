package apiserver

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// A page cursor is opaque to clients: a version, the position (start time and id of the last
// run of the page), a digest of the query it belongs to, and a checksum. It confers nothing
// (any position is public), so it is validated rather than signed: a cursor that was altered,
// cut short or taken to another server's runs or other filters is refused as bad_cursor.
const (
	cursorVersion = 1
	cursorBody    = 1 + 8 + 16 + 8
	cursorLen     = cursorBody + 8
)

// queryDigest binds a cursor to the query it pages through.
func queryDigest(serverID int64, outcome, region string) [8]byte {
	h := sha256.New()
	var id [8]byte
	binary.BigEndian.PutUint64(id[:], uint64(serverID))
	h.Write(id[:])
	h.Write([]byte("\x00" + outcome + "\x00" + region))
	var out [8]byte
	copy(out[:], h.Sum(nil))
	return out
}

func cursorChecksum(body []byte) []byte {
	sum := sha256.Sum256(append([]byte("mcpwatch page cursor\x00"), body...))
	return sum[:8]
}

func encodeCursor(c store.RunCursor, query [8]byte) string {
	b := make([]byte, 0, cursorLen)
	b = append(b, cursorVersion)
	b = binary.BigEndian.AppendUint64(b, uint64(c.Start.UnixMicro()))
	b = append(b, c.ID[:]...)
	b = append(b, query[:]...)
	b = append(b, cursorChecksum(b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string, query [8]byte) (store.RunCursor, error) {
	bad := errorf(http.StatusBadRequest, codeBadCursor, "cursor is not one this API gave for this query; start again without it")
	if len(s) > 2*cursorLen {
		return store.RunCursor{}, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != cursorLen || b[0] != cursorVersion {
		return store.RunCursor{}, bad
	}
	if !bytes.Equal(cursorChecksum(b[:cursorBody]), b[cursorBody:]) || !bytes.Equal(b[25:33], query[:]) {
		return store.RunCursor{}, bad
	}
	us := int64(binary.BigEndian.Uint64(b[1:9]))
	start := time.UnixMicro(us).UTC()
	if start.Year() < 2000 || start.Year() > 9999 {
		return store.RunCursor{}, bad
	}
	var c store.RunCursor
	c.Start = start
	copy(c.ID[:], b[9:25])
	return c, nil
}
