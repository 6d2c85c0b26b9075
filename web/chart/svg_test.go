package chart

import (
	"encoding/xml"
	"io"
	"strconv"
	"strings"
	"testing"
)

// node is a parsed SVG element, enough to assert on what a chart drew.
type node struct {
	name     string
	attrs    map[string]string
	text     string
	children []*node
}

// parseSVG parses a drawing as XML, failing the test when it is not well formed.
func parseSVG(t *testing.T, doc string) *node {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(doc))
	var stack []*node
	var root *node
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v\n%s", err, doc)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &node{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				parent := stack[len(stack)-1]
				parent.children = append(parent.children, n)
			} else if root == nil {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(tok)
			}
		}
	}
	if root == nil || root.name != "svg" {
		t.Fatalf("no <svg> root in %s", doc)
	}
	return root
}

// all returns the elements named name below n, in document order.
func (n *node) all(name string) []*node {
	var out []*node
	for _, c := range n.children {
		if c.name == name {
			out = append(out, c)
		}
		out = append(out, c.all(name)...)
	}
	return out
}

// withClass keeps the nodes whose class list holds class.
func withClass(ns []*node, class string) []*node {
	var out []*node
	for _, n := range ns {
		for _, c := range strings.Fields(n.attrs["class"]) {
			if c == class {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

func TestNumIsShortAndStable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0"}, {-0.001, "0"}, {1, "1"}, {1.5, "1.5"}, {1.234, "1.23"}, {1.235, "1.24"},
		{100, "100"}, {-3.25, "-3.25"}, {1e6, "1000000"},
	} {
		if got := num(tc.in); got != tc.want {
			t.Errorf("num(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func parse(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return v
}
