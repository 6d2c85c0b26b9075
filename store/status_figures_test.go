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
