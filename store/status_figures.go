package store

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// decodeInt8Array reads a one-dimensional bigint[] without NULLs in Postgres's binary array
// format (what array_send gives) into out. The status queries read hundreds of thousands of
// numbers per request; a loop over the bytes costs a fraction of decoding them element by
// element through the driver's generic array codec.
func decodeInt8Array(b []byte, out []int64) ([]int64, error) {
	const int8OID = 20
	if len(b) < 12 {
		return nil, errors.New("bigint array: too short")
	}
	ndim := binary.BigEndian.Uint32(b[0:4])
	hasNull := binary.BigEndian.Uint32(b[4:8])
	elem := binary.BigEndian.Uint32(b[8:12])
	if ndim == 0 {
		return out, nil // the empty array
	}
	if ndim != 1 || hasNull != 0 || elem != int8OID || len(b) < 20 {
		return nil, fmt.Errorf("bigint array: %d dimensions, nulls %d, element type %d", ndim, hasNull, elem)
	}
	n := int(binary.BigEndian.Uint32(b[12:16]))
	body := b[20:]
	if len(body) != 12*n {
		return nil, fmt.Errorf("bigint array: %d bytes for %d elements", len(body), n)
	}
	for i := range n {
		e := body[12*i:]
		if binary.BigEndian.Uint32(e[0:4]) != 8 {
			return nil, errors.New("bigint array: an element is not 8 bytes")
		}
		out = append(out, int64(binary.BigEndian.Uint64(e[4:12])))
	}
	return out, nil
}
