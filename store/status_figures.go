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

// decodeInt8Rows reads a two-dimensional bigint[] without NULLs, as array_send gives it, into
// out row after row, each row width numbers: the order unnest would give. Sending the array as
// it is stored spares Postgres flattening it first, a function call per number (some 700 per
// server and region for a day of hours), which took most of the time of reading a status
// page's sparklines. A one-dimensional array of width numbers is one row; an empty one none.
func decodeInt8Rows(b []byte, width int, out []int64) ([]int64, error) {
	const int8OID = 20
	if len(b) < 12 {
		return nil, errors.New("bigint rows: too short")
	}
	ndim := binary.BigEndian.Uint32(b[0:4])
	hasNull := binary.BigEndian.Uint32(b[4:8])
	elem := binary.BigEndian.Uint32(b[8:12])
	if ndim == 0 {
		return out, nil
	}
	if ndim > 2 || hasNull != 0 || elem != int8OID || len(b) < 12+8*int(ndim) {
		return nil, fmt.Errorf("bigint rows: %d dimensions, nulls %d, element type %d", ndim, hasNull, elem)
	}
	n := 1
	for d := range int(ndim) {
		n *= int(binary.BigEndian.Uint32(b[12+8*d:]))
	}
	if last := int(binary.BigEndian.Uint32(b[12+8*(int(ndim)-1):])); last != width {
		return nil, fmt.Errorf("bigint rows: rows of %d numbers, want %d", last, width)
	}
	body := b[12+8*int(ndim):]
	if len(body) != 12*n {
		return nil, fmt.Errorf("bigint rows: %d bytes for %d elements", len(body), n)
	}
	for i := range n {
		e := body[12*i:]
		if binary.BigEndian.Uint32(e[0:4]) != 8 {
			return nil, errors.New("bigint rows: an element is not 8 bytes")
		}
		out = append(out, int64(binary.BigEndian.Uint64(e[4:12])))
	}
	return out, nil
}
