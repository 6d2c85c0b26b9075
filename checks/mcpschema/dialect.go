package mcpschema

import (
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// dialectOf maps a $schema value to its draft the way the compiler itself recognises them
// (http or https, with or without an empty fragment), so that both agree on what is known.
func dialectOf(url string) *jsonschema.Draft {
	rest, ok := strings.CutPrefix(url, "https://")
	if !ok {
		if rest, ok = strings.CutPrefix(url, "http://"); !ok {
			return nil
		}
	}
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		if frag := rest[i:]; frag != "#" && frag != "#/" {
			return nil
		}
		rest = rest[:i]
	}
	switch rest {
	case "json-schema.org/draft-04/schema":
		return jsonschema.Draft4
	case "json-schema.org/draft-06/schema":
		return jsonschema.Draft6
	case "json-schema.org/draft-07/schema":
		return jsonschema.Draft7
	case "json-schema.org/draft/2019-09/schema":
		return jsonschema.Draft2019
	case "json-schema.org/draft/2020-12/schema", "json-schema.org/schema":
		return jsonschema.Draft2020
	}
	return nil
}

func dialectName(d *jsonschema.Draft) string {
	switch d {
	case jsonschema.Draft4:
		return "draft-04"
	case jsonschema.Draft6:
		return "draft-06"
	case jsonschema.Draft7:
		return "draft-07"
	case jsonschema.Draft2019:
		return "2019-09"
	}
	return "2020-12"
}

func compileMetaschemas() (map[*jsonschema.Draft]*jsonschema.Schema, error) {
	out := map[*jsonschema.Draft]*jsonschema.Schema{}
	c := jsonschema.NewCompiler()
	c.LoadURL = refuseLoad
	for _, d := range []*jsonschema.Draft{jsonschema.Draft4, jsonschema.Draft6, jsonschema.Draft7, jsonschema.Draft2019, jsonschema.Draft2020} {
		// The library carries every draft's metaschema; compiling its URL returns it.
		s, err := c.Compile(d.URL())
		if err != nil {
			return nil, fmt.Errorf("mcpschema: metaschema of %s: %w", dialectName(d), err)
		}
		out[d] = s
	}
	return out, nil
}
