package store

import (
	"slices"
	"testing"
)

func TestDecodeInt8ArrayReadsWhatPostgresSends(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	var one, empty, nulls, twoDim, ints []byte
	if err := s.pool.QueryRow(ctx, `SELECT array_send(ARRAY[1, -2, 9223372036854775807, -9223372036854775808]::bigint[]),
		array_send('{}'::bigint[]), array_send(ARRAY[1, NULL]::bigint[]), array_send(ARRAY[[1, 2], [3, 4]]::bigint[]),
		array_send(ARRAY[1, 2]::integer[])`).Scan(&one, &empty, &nulls, &twoDim, &ints); err != nil {
		t.Fatal(err)
	}
	got, err := decodeInt8Array(one, nil)
	if want := []int64{1, -2, 9223372036854775807, -9223372036854775808}; err != nil || !slices.Equal(got, want) {
		t.Errorf("decode = %v, %v; want %v", got, err, want)
	}
	if got, err := decodeInt8Array(empty, []int64{7}); err != nil || !slices.Equal(got, []int64{7}) {
		t.Errorf("empty array = %v, %v", got, err)
	}
	for name, b := range map[string][]byte{"nulls": nulls, "two dimensions": twoDim, "integer[]": ints,
		"truncated": one[:len(one)-3], "short": one[:8]} {
		if _, err := decodeInt8Array(b, nil); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

func TestDecodeInt8RowsReadsATwoDimensionalArrayInUnnestOrder(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	var twoDim, oneRow, empty, nulls, ints, threeDim []byte
	var flat []int64
	if err := s.pool.QueryRow(ctx, `SELECT array_send(a), ARRAY(SELECT unnest(a)), array_send(ARRAY[7, 8, 9]::bigint[]),
			array_send('{}'::bigint[]), array_send(ARRAY[[1, NULL, 3]]::bigint[]), array_send(ARRAY[[1, 2, 3]]::integer[]),
			array_send(ARRAY[[[1, 2, 3]]]::bigint[])
		FROM (SELECT ARRAY[[1, -2, 3], [9223372036854775807, -9223372036854775808, 0]]::bigint[] AS a) t`).Scan(
		&twoDim, &flat, &oneRow, &empty, &nulls, &ints, &threeDim); err != nil {
		t.Fatal(err)
	}
	if got, err := decodeInt8Rows(twoDim, 3, nil); err != nil || !slices.Equal(got, flat) {
		t.Errorf("two rows = %v, %v; want %v (unnest's order)", got, err, flat)
	}
	if got, err := decodeInt8Rows(oneRow, 3, []int64{1}); err != nil || !slices.Equal(got, []int64{1, 7, 8, 9}) {
		t.Errorf("one row = %v, %v", got, err)
	}
	if got, err := decodeInt8Rows(empty, 3, nil); err != nil || len(got) != 0 {
		t.Errorf("empty = %v, %v", got, err)
	}
	for name, tc := range map[string]struct {
		b     []byte
		width int
	}{"nulls": {nulls, 3}, "integer[]": {ints, 3}, "three dimensions": {threeDim, 3}, "rows of another width": {twoDim, 2},
		"truncated": {twoDim[:len(twoDim)-3], 3}, "short": {twoDim[:8], 3}} {
		if _, err := decodeInt8Rows(tc.b, tc.width, nil); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}
