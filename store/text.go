package store

import (
	"strings"
	"unicode/utf8"
)

// Length bounds for text that reaches the store from a probed server (names, versions,
// messages): Postgres rejects NUL bytes and invalid UTF-8 in text, and one hostile run must
// not fail the batch it is written with.
const (
	maxShortText = 512
	maxLongText  = 4096
)

// StorableText reports whether Postgres text can hold s as it is: valid UTF-8 without NUL.
// Input that a client sends (a name in a path, a query parameter) and that is not storable is
// the client's mistake, to refuse before a query fails on it.
func StorableText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}
