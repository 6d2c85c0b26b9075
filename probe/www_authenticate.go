package probe

import (
	"strings"

	"github.com/mcpwatch/mcpwatch/internal/httptoken"
)

// Challenge is one challenge of a WWW-Authenticate header (RFC 9110 section 11.6.1): a scheme
// and its auth-params (names in lower case). A token68 challenge has no params.
type Challenge struct {
	Scheme string
	Params map[string]string
}

// ParseChallenges reads every challenge of the WWW-Authenticate header values. It is
// lenient: what it cannot read it skips, and a server's header can never make it fail.
func ParseChallenges(values []string) []Challenge {
	var out []Challenge
	for _, v := range values {
		out = append(out, parseChallengeList(v)...)
	}
	return out
}

// ResourceMetadataURL is the resource_metadata parameter of the first challenge that has
// one (RFC 9728 section 5.1).
func ResourceMetadataURL(cs []Challenge) (string, bool) {
	for _, c := range cs {
		if u, ok := c.Params["resource_metadata"]; ok {
			return u, true
		}
	}
	return "", false
}

// parseChallengeList reads `Scheme a=b, c="d", Other e=f`: a comma separates both params and
// challenges, and a new challenge starts with a token that is not followed by "=".
func parseChallengeList(s string) []Challenge {
	var out []Challenge
	p := challengeScanner{s: s}
	for {
		p.skipSeparators()
		if p.done() {
			return out
		}
		name := p.token()
		if name == "" {
			p.skipItem()
			continue
		}
		p.skipSpace()
		if p.peek() == '=' && len(out) > 0 && !p.isToken68Tail() {
			// A param of the current challenge.
			p.i++
			p.skipSpace()
			out[len(out)-1].Params[strings.ToLower(name)] = p.value()
			continue
		}
		c := Challenge{Scheme: name, Params: map[string]string{}}
		out = append(out, c)
		// The first param (or a token68) follows the scheme after a space.
		p.skipSpace()
		if p.done() || p.peek() == ',' {
			continue
		}
		param := p.token()
		p.skipSpace()
		if p.peek() == '=' && !p.isToken68Tail() {
			p.i++
			p.skipSpace()
			c.Params[strings.ToLower(param)] = p.value()
			continue
		}
		p.skipItem() // token68
	}
}

// challengeScanner walks one header value.
type challengeScanner struct {
	s string
	i int
}

func (p *challengeScanner) done() bool { return p.i >= len(p.s) }

func (p *challengeScanner) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}

func (p *challengeScanner) skipSpace() {
	for !p.done() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *challengeScanner) skipSeparators() {
	for !p.done() && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == ',') {
		p.i++
	}
}

// skipItem skips to the next comma outside a quoted string.
func (p *challengeScanner) skipItem() {
	for !p.done() && p.s[p.i] != ',' {
		if p.s[p.i] == '"' {
			p.quoted()
			continue
		}
		p.i++
	}
}

// isToken68Tail reports whether the "=" at the cursor ends a token68 (padding: "=" followed
// by more "=", a comma or the end) rather than starting a param value.
func (p *challengeScanner) isToken68Tail() bool {
	j := p.i
	for j < len(p.s) && p.s[j] == '=' {
		j++
	}
	for j < len(p.s) && (p.s[j] == ' ' || p.s[j] == '\t') {
		j++
	}
	return j-p.i > 1 || j >= len(p.s) || p.s[j] == ','
}

// token reads an RFC 9110 token.
func (p *challengeScanner) token() string {
	start := p.i
	for !p.done() && httptoken.IsTokenChar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// value reads a param value: a quoted string or a token.
func (p *challengeScanner) value() string {
	if p.peek() == '"' {
		return p.quoted()
	}
	start := p.i
	for !p.done() && p.s[p.i] != ',' && p.s[p.i] != ' ' && p.s[p.i] != '\t' {
		p.i++
	}
	return p.s[start:p.i]
}

// quoted reads a quoted string at the cursor, unescaping quoted-pairs; an unterminated one
// runs to the end.
func (p *challengeScanner) quoted() string {
	p.i++ // the opening quote
	var b strings.Builder
	for !p.done() {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '"':
			return b.String()
		case c == '\\' && !p.done():
			b.WriteByte(p.s[p.i])
			p.i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
