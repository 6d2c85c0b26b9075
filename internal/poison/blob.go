package poison

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
)

// Bounds of the blob scan. A run shorter than blobMin is an identifier or a hash more often
// than a message; a run is decoded up to blobDecode characters, enough to tell text from
// bytes.
const (
	blobMin       = 48
	blobDecode    = 4096
	blobPreview   = 60
	blobPrintable = 0.9 // the share of decoded bytes that must be text
)

// scanBlobs finds the first long base64 run that decodes to text: a message a model decodes
// and a reviewer skims past. Runs that decode to bytes (an embedded image, a hash, a long
// identifier) are left alone.
func scanBlobs(text string) (Match, bool) {
	for i := 0; i < len(text); {
		if !base64Byte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && base64Byte(text[j]) {
			j++
		}
		start, end := i, j
		i = j
		if decoded, ok := decodesToText(strings.TrimRight(text[start:end], "=")); ok {
			pattern := fmt.Sprintf("base64 of %d characters that decodes to %q", end-start,
				textclip.Bytes(decoded, blobPreview))
			return Match{Family: Blob, Pattern: pattern, Excerpt: excerpt(text, start, end)}, true
		}
	}
	return Match{}, false
}

func base64Byte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '+' || c == '/' || c == '-' || c == '_' || c == '='
}

// decodesToText decodes a run (standard or URL alphabet, padding removed) and reports whether
// it is long enough and mostly printable text.
func decodesToText(run string) (string, bool) {
	if len(run) < blobMin {
		return "", false
	}
	var upper, lower bool
	for k := 0; k < len(run); k++ {
		c := run[k]
		upper = upper || 'A' <= c && c <= 'Z'
		lower = lower || 'a' <= c && c <= 'z'
	}
	if !upper || !lower {
		return "", false
	}
	run = run[:min(len(run), blobDecode)]
	run = run[:len(run)-len(run)%4]
	enc := base64.RawStdEncoding
	if strings.ContainsAny(run, "-_") {
		if strings.ContainsAny(run, "+/") {
			return "", false
		}
		enc = base64.RawURLEncoding
	}
	b, err := enc.DecodeString(run)
	if err != nil || len(b) == 0 {
		return "", false
	}
	printable := 0
	for k := 0; k < len(b); {
		r, size := utf8.DecodeRune(b[k:])
		if r != utf8.RuneError && (r >= 0x20 && r != 0x7F || r == '\n' || r == '\t' || r == '\r') {
			printable += size
		}
		k += size
	}
	if float64(printable) < blobPrintable*float64(len(b)) {
		return "", false
	}
	return strings.ToValidUTF8(string(b), "\uFFFD"), true
}
