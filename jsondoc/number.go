package jsondoc

import (
	"strconv"
	"strings"
)

// decimal is a JSON number's value as 0.digits × 10^point, with digits free of leading and
// trailing zeros ("" for zero). Comparing these is exact whatever the number's size, where
// float64 rounds and big.Rat refuses exponents beyond a million.
type decimal struct {
	neg    bool
	digits string
	point  int64
}

// exponentCap bounds exponents: beyond it a number's size no longer changes any comparison
// with a number a person could write.
const exponentCap = 1 << 40

func parseDecimal(text string) decimal {
	var d decimal
	if strings.HasPrefix(text, "-") {
		d.neg = true
		text = text[1:]
	}
	mantissa, exp := text, int64(0)
	if i := strings.IndexAny(text, "eE"); i >= 0 {
		mantissa = text[:i]
		exp = parseExponent(text[i+1:])
	}
	intPart, fracPart, _ := strings.Cut(mantissa, ".")
	// Leading zeros of the integer part only move the decimal point.
	trimmed := strings.TrimLeft(intPart, "0")
	point := int64(len(trimmed))
	digits := trimmed + fracPart
	if trimmed == "" {
		// 0.000ddd: each leading zero of the fraction moves the point right.
		lead := len(fracPart) - len(strings.TrimLeft(fracPart, "0"))
		digits = fracPart[lead:]
		point = -int64(lead)
	}
	d.digits = strings.TrimRight(digits, "0")
	if d.digits == "" {
		return decimal{}
	}
	d.point = point + exp
	return d
}

func parseExponent(s string) int64 {
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	e := int64(0)
	for _, c := range []byte(s) {
		e = e*10 + int64(c-'0')
		if e > exponentCap {
			e = exponentCap
			break
		}
	}
	if neg {
		return -e
	}
	return e
}

func (d decimal) sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// CompareNumbers compares two JSON number texts by value: -1, 0 or +1.
func CompareNumbers(a, b string) int {
	x, y := parseDecimal(a), parseDecimal(b)
	sx, sy := x.sign(), y.sign()
	if sx != sy || sx == 0 {
		return cmpInt(int64(sx), int64(sy))
	}
	// Same sign, both non-zero: compare magnitudes, then flip for negatives.
	m := cmpInt(x.point, y.point)
	if m == 0 {
		m = strings.Compare(x.digits, y.digits)
	}
	return m * sx
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// IsInteger reports whether a JSON number text has an integral value (7, 7.0, 7e0, 0.7e1).
func IsInteger(text string) bool {
	d := parseDecimal(text)
	return d.digits == "" || int64(len(d.digits)) <= d.point
}

// Sign is -1, 0 or +1 as the JSON number text is negative, zero or positive.
func Sign(text string) int { return parseDecimal(text).sign() }

// NormalNumber is a text that two JSON numbers share exactly when their values are equal
// (1, 1.0 and 10e-1 all give the same).
func NormalNumber(text string) string {
	d := parseDecimal(text)
	if d.digits == "" {
		return "0"
	}
	sign := ""
	if d.neg {
		sign = "-"
	}
	return sign + "0." + d.digits + "e" + strconv.FormatInt(d.point, 10)
}
