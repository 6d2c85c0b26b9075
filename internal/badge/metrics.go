package badge

// unitsPerEm is the em size of DejaVu Sans in font units.
const unitsPerEm = 2048

// asciiAdvance are the advance widths of DejaVu Sans (Book) for the printable ASCII characters
// U+0020 to U+007E, in font units, read from the font's hmtx table.
func asciiAdvance() [95]int {
	return [95]int{
		651, 821, 942, 1716, 1303, 1946, 1597, 563, 799, 799, 1024, 1716, 651, 739, 651, 690, // space to /
		1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, // 0 to 9
		690, 690, 1716, 1716, 1716, 1087, 2048, // : to @
		1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604, 604, 1343, 1141, 1767, // A to M
		1532, 1612, 1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403, // N to Z
		799, 690, 799, 1716, 1024, 1024, // [ to `
		1255, 1300, 1126, 1300, 1260, 721, 1300, 1298, 569, 569, 1186, 569, 1995, // a to m
		1298, 1253, 1300, 1300, 842, 1067, 803, 1298, 1212, 1675, 1212, 1212, 1075, // n to z
		1303, 690, 1303, 1716, // { to ~
	}
}

// advance is the width of r in font units: exact for ASCII, the width of a digit for other
// letters, a full em for wide (East Asian) characters.
func advance(r rune) int {
	switch {
	case r >= 0x20 && r <= 0x7e:
		return asciiAdvance()[r-0x20]
	case r >= 0x1100 && (r <= 0x115f || (r >= 0x2e80 && r <= 0xa4cf) || (r >= 0xac00 && r <= 0xd7a3) ||
		(r >= 0xf900 && r <= 0xfaff) || (r >= 0xfe30 && r <= 0xfe4f) || (r >= 0xff00 && r <= 0xff60) ||
		(r >= 0x1f300 && r <= 0x1faff) || (r >= 0x20000 && r <= 0x3fffd)):
		return unitsPerEm
	}
	return 1303
}
