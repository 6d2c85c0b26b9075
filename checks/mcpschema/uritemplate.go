package mcpschema

import "github.com/santhosh-tekuri/jsonschema/v5"

// format finds the assertion of a JSON Schema format: this package's own where the library's
// is wrong for the specification's use, else the library's.
func format(name string) (func(any) bool, bool) {
	if f, ok := formatOverrides()[name]; ok {
		return f, true
	}
	f, ok := jsonschema.Formats[name]
	return f, ok
}

// formatOverrides are the formats every compiler of this package asserts its own way. The
// library parses a uri-template as a URL and so refuses an expression where a URL cannot
// have a brace (a host: "exported-data://{exportName}"), though RFC 6570 §2 lets a template
// be any sequence of literals and expressions.
func formatOverrides() map[string]func(any) bool {
	return map[string]func(any) bool{"uri-template": isURITemplate}
}

// withFormats gives a compiler the formats of formatOverrides.
func withFormats(c *jsonschema.Compiler) {
	for name, f := range formatOverrides() {
		c.Formats[name] = f
	}
}

// isURITemplate reports whether v, when a string, is a URI Template by the grammar of RFC 6570
// §2 (any level): literals and expressions, each expression an optional operator and a
// comma-separated list of variables, each with an optional prefix or explode modifier. A
// value of another type is not the format's to judge.
func isURITemplate(v any) bool {
	s, ok := v.(string)
	if !ok {
		return true
	}
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '{':
			end := i + 1
			for end < len(s) && s[end] != '}' {
				end++
			}
			if end == len(s) || !isTemplateExpression(s[i+1:end]) {
				return false
			}
			i = end + 1
		case c == '%':
			if !isPctEncoded(s, i) {
				return false
			}
			i += 3
		case !isTemplateLiteral(c):
			return false
		default:
			i++
		}
	}
	return true
}

// isTemplateLiteral reports whether a byte may stand in a template's literals (RFC 6570 §2.1):
// anything but controls, space, '"', "'", '%' (outside pct-encoding), '<', '>', '\', '^', '`',
// '{', '|' and '}'. Bytes of multi-byte UTF-8 stand for ucschar and iprivate, which are
// allowed.
func isTemplateLiteral(c byte) bool {
	if c <= 0x20 || c == 0x7F {
		return false
	}
	switch c {
	case '"', '\'', '%', '<', '>', '\\', '^', '`', '{', '|', '}':
		return false
	}
	return true
}

// isTemplateExpression reports whether the text between braces is an expression (RFC 6570
// §2.2-2.4): [ operator ] varspec *( "," varspec ).
func isTemplateExpression(e string) bool {
	if e == "" {
		return false
	}
	switch e[0] {
	case '+', '#', '.', '/', ';', '?', '&', '=', ',', '!', '@', '|':
		e = e[1:]
	}
	for {
		n := varspecLength(e)
		if n == 0 {
			return false
		}
		e = e[n:]
		if e == "" {
			return true
		}
		if e[0] != ',' {
			return false
		}
		e = e[1:]
	}
}

// varspecLength is the length of the varspec at the start of e (0 when there is none):
// varname [ ":" max-length / "*" ], where varname = varchar *( ["."] varchar ) and max-length
// is 1 to 4 digits without a leading zero.
func varspecLength(e string) int {
	i, dotOK := 0, false
scan:
	for i < len(e) {
		switch c := e[i]; {
		case c == '.' && dotOK:
			if i+1 >= len(e) || !isVarchar(e, i+1) {
				return 0
			}
			i++
			dotOK = false
		case c == '%' && isPctEncoded(e, i):
			i += 3
			dotOK = true
		case c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			i++
			dotOK = true
		default:
			break scan
		}
	}
	if i == 0 {
		return 0
	}
	if i < len(e) && e[i] == '*' {
		return i + 1
	}
	if i < len(e) && e[i] == ':' {
		digits := 0
		for i+1+digits < len(e) && e[i+1+digits] >= '0' && e[i+1+digits] <= '9' {
			digits++
		}
		if digits == 0 || digits > 4 || e[i+1] == '0' {
			return 0
		}
		return i + 1 + digits
	}
	return i
}

// isVarchar reports whether a varchar starts at e[i]: ALPHA, DIGIT, '_' or pct-encoded.
func isVarchar(e string, i int) bool {
	c := e[i]
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '%' && isPctEncoded(e, i)
}

// isPctEncoded reports whether s[i:] starts with '%' and two hex digits.
func isPctEncoded(s string, i int) bool {
	return i+2 < len(s) && s[i] == '%' && isHex(s[i+1]) && isHex(s[i+2])
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
