package jsondoc

import "bytes"

// The walkers below read text a scanner or json.Valid has already accepted (a member of a
// message ScanObject took, say): they skip what they do not visit without checking it, much
// faster than validating it again, and their results on text that is not JSON mean nothing.

// EachMember calls visit with each member of the object valid holds, in order: its name
// token (see Unquote) and its value, a sub-slice of valid whose capacity ends with it. It
// reports false when valid is neither an object nor null (null has no members), where
// json.Unmarshal into a struct fails.
func EachMember(valid []byte, visit func(name, value []byte)) bool {
	i, ok := enterContainer(valid, '{', '}')
	if i < 0 {
		return ok
	}
	for {
		nameEnd := Skip(valid, i)
		name := valid[i:nameEnd]
		i = skipSpace(valid, nameEnd)
		i = skipSpace(valid, i+1) // the colon
		end := Skip(valid, i)
		visit(name, valid[i:end:end])
		i = skipSpace(valid, end)
		if valid[i] == '}' {
			return true
		}
		i = skipSpace(valid, i+1) // the comma
	}
}

// EachElement calls visit with each element of the array valid holds, in order. It reports
// false when valid is neither an array nor null.
func EachElement(valid []byte, visit func(value []byte)) bool {
	i, ok := enterContainer(valid, '[', ']')
	if i < 0 {
		return ok
	}
	for {
		end := Skip(valid, i)
		visit(valid[i:end:end])
		i = skipSpace(valid, end)
		if valid[i] == ']' {
			return true
		}
		i = skipSpace(valid, i+1) // the comma
	}
}

// enterContainer finds where the contents of the container valid holds begin, for a
// container opened by open and closed by close. It returns -1 when there is nothing to
// visit, with ok saying why: false when valid is neither such a container nor null, true for
// null and for an empty container.
func enterContainer(valid []byte, open, close byte) (i int, ok bool) {
	i = skipSpace(valid, 0)
	switch {
	case i == len(valid):
		return -1, false
	case valid[i] == 'n':
		return -1, true
	case valid[i] != open:
		return -1, false
	}
	i = skipSpace(valid, i+1)
	if valid[i] == close {
		return -1, true
	}
	return i, true
}

// Skip returns the index after the value of valid text that starts at i.
func Skip(valid []byte, i int) int {
	switch valid[i] {
	case '"':
		return skipString(valid, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(valid); j++ {
			switch valid[j] {
			case '"':
				j = skipString(valid, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(valid)
	}
	j := i
	for j < len(valid) {
		switch valid[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
		j++
	}
	return j
}

// skipString returns the index after the valid string token that starts (with its quote)
// at i: the first quote not escaped, found without reading the bytes between.
func skipString(valid []byte, i int) int {
	j := i + 1
	for {
		q := bytes.IndexByte(valid[j:], '"')
		if q < 0 {
			return len(valid)
		}
		j += q
		backslashes := 0
		for k := j - 1; k > i && valid[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return j + 1
		}
		j++
	}
}
