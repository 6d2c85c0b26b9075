package web

import (
	"html/template"
	"regexp"
	"strings"
)

// ansiToHTML turns the coloured text report into HTML: each SGR escape the report's palette
// writes becomes a span with a class per code ("\x1b[1;31m" is class "a1 a31"), and text is
// escaped. Any escape byte in the report comes from the palette: the report shows a server's
// own control characters escaped (as \x1b), so the server cannot forge one here. Frame
// references ("[frames #3 #4]") become links to the frames on the page.
func ansiToHTML(s string) template.HTML {
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	open := false
	for len(s) > 0 {
		i := strings.IndexByte(s, 0x1b)
		if i < 0 {
			b.WriteString(linkFrames(template.HTMLEscapeString(s)))
			break
		}
		b.WriteString(linkFrames(template.HTMLEscapeString(s[:i])))
		s = s[i:]
		end := sgrEnd(s)
		if end < 0 { // a lone escape byte: show it as the report would
			b.WriteString(`\x1b`)
			s = s[1:]
			continue
		}
		codes := s[2:end]
		s = s[end+1:]
		if open {
			b.WriteString(`</span>`)
			open = false
		}
		if codes == "0" || codes == "" {
			continue
		}
		var classes []string
		for _, c := range strings.Split(codes, ";") {
			classes = append(classes, "a"+c)
		}
		b.WriteString(`<span class="` + template.HTMLEscapeString(strings.Join(classes, " ")) + `">`)
		open = true
	}
	if open {
		b.WriteString(`</span>`)
	}
	return template.HTML(b.String())
}

// sgrEnd returns the index of the final 'm' of an SGR sequence at the start of s ("\x1b[…m"
// with digits and semicolons only), or -1.
func sgrEnd(s string) int {
	if len(s) < 3 || s[1] != '[' {
		return -1
	}
	for i := 2; i < len(s) && i < 16; i++ {
		switch c := s[i]; {
		case c == 'm':
			return i
		case c == ';' || c >= '0' && c <= '9':
		default:
			return -1
		}
	}
	return -1
}

var frameRefs = regexp.MustCompile(`\[frames? #\d+(?: #\d+)*\]`)
var frameNumber = regexp.MustCompile(`#(\d+)`)

// linkFrames links the frame numbers of "[frame #3]" and "[frames #3 #4]" in escaped text.
func linkFrames(escaped string) string {
	return frameRefs.ReplaceAllStringFunc(escaped, func(ref string) string {
		return frameNumber.ReplaceAllString(ref, `<a href="#frame-$1">#$1</a>`)
	})
}
