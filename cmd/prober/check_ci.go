package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/checks/mcpschema"
	"github.com/mcpwatch/mcpwatch/internal/atomicfile"
	"github.com/mcpwatch/mcpwatch/report"
)

// ciFlags are the flags of `prober check` that fit it into CI: a baseline of accepted
// failures, where SARIF results point, and the official schemas to validate with too.
type ciFlags struct {
	baseline, writeBaseline, sarifArtifact, officialSchemas string
	// also are the --write FORMAT=FILE flags: the same report in more formats, so that one
	// probe feeds the log, the job summary and code scanning.
	also    repeated
	outputs []extraOutput
}

// extraOutput is one --write FORMAT=FILE.
type extraOutput struct {
	format report.Format
	path   string
}

func (c *ciFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&c.baseline, "baseline", "", "")
	fs.StringVar(&c.writeBaseline, "write-baseline", "", "")
	fs.StringVar(&c.sarifArtifact, "sarif-artifact", "", "")
	fs.StringVar(&c.officialSchemas, "official-schemas", "", "")
	fs.Var(&c.also, "write", "")
}

// validate checks what can be checked before the catalogue is built; files are read later.
func (c ciFlags) validate(format string) (ciFlags, error) {
	sarif := format == "sarif"
	c.outputs = nil
	for _, kv := range c.also {
		name, path, ok := strings.Cut(kv, "=")
		f, known := report.LookupFormat(name)
		switch {
		case !ok || path == "":
			return c, fmt.Errorf("--write %q: want FORMAT=FILE, e.g. --write sarif=mcp.sarif", kv)
		case !known:
			return c, fmt.Errorf("--write %q: format %q is not one of %s", kv, name, strings.Join(report.FormatNames(), ", "))
		case path == "-":
			return c, fmt.Errorf("--write %q: needs a file (the main report goes to stdout)", kv)
		}
		if err := writablePath(path); err != nil {
			return c, fmt.Errorf("--write %q: %w", kv, err)
		}
		sarif = sarif || name == "sarif"
		c.outputs = append(c.outputs, extraOutput{format: f, path: path})
	}
	if c.sarifArtifact != "" && !sarif {
		return c, fmt.Errorf("--sarif-artifact applies to the sarif format (--format sarif or --write sarif=FILE)")
	}
	if c.writeBaseline == "-" {
		return c, errors.New("--write-baseline needs a file path (the report goes to stdout)")
	}
	if c.writeBaseline != "" {
		if err := writablePath(c.writeBaseline); err != nil {
			return c, fmt.Errorf("--write-baseline: %w", err)
		}
	}
	return c, nil
}

// writablePath rejects a path that names a directory or lies in a folder that does not
// exist, before a probe that could take a minute.
func writablePath(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s cannot be written: no folder %s", path, filepath.Dir(path))
	}
	return nil
}

// ciInputs are the files the CI flags name, read before the probe so that a mistake in
// them is a usage error at once rather than after the probe.
type ciInputs struct {
	baseline *report.Baseline
	official *mcpschema.Official
	// ours is this project's validator, used beside the official schemas.
	ours *mcpschema.Validator
}

func loadCIInputs(c ciFlags, catalog *checks.Registry) (ciInputs, error) {
	var in ciInputs
	if c.baseline != "" {
		known := func(id string) bool { _, ok := catalog.Lookup(id); return ok }
		b, err := report.LoadBaseline(c.baseline, known)
		if err != nil {
			return in, fmt.Errorf("--baseline: %w", err)
		}
		in.baseline = b
	}
	if c.officialSchemas != "" {
		o, err := mcpschema.LoadOfficial(c.officialSchemas)
		if err != nil {
			return in, fmt.Errorf("--official-schemas: %w", err)
		}
		ours, err := mcpschema.New()
		if err != nil {
			return in, fmt.Errorf("--official-schemas: %w", err)
		}
		in.official, in.ours = o, ours
	}
	return in, nil
}

// judgeOptions are how the CI flags judge a probe: with the official schemas and the
// baseline when they ask for them, and, with --write-baseline, writing the run's failures as
// the new baseline to judge the run by.
func (in ciInputs) judgeOptions(c ciFlags) report.JudgeOptions {
	o := report.JudgeOptions{Official: in.official, Schemas: in.ours}
	o.Build.Baseline = in.baseline
	if c.writeBaseline != "" {
		o.RenewBaseline = func(nb *report.Baseline, rep *report.Report) error {
			if err := writeBaselineFile(c.writeBaseline, nb, rep); err != nil {
				return err
			}
			nb.File = c.writeBaseline
			return nil
		}
	}
	return o
}

// writeOutputs writes the --write reports.
func (c ciFlags) writeOutputs(rep *report.Report, o report.WriteOptions) error {
	o.Color = false
	for _, out := range c.outputs {
		err := writeFileAtomically(out.path, func(w io.Writer) error { return out.format.Write(w, rep, o) })
		if err != nil {
			return fmt.Errorf("--write %s=%s: %w", out.format.Name, out.path, err)
		}
	}
	return nil
}

// writeBaselineFile writes the baseline to path.
func writeBaselineFile(path string, b *report.Baseline, rep *report.Report) error {
	err := writeFileAtomically(path, func(w io.Writer) error { return report.WriteBaseline(w, b, rep) })
	if err != nil {
		return fmt.Errorf("--write-baseline %s: %w", path, err)
	}
	return nil
}

// writeFileAtomically writes path so that a CI step or a repository never sees a
// half-written file.
func writeFileAtomically(path string, write func(w io.Writer) error) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return fmt.Errorf("cannot be written: %w", err)
	}
	defer f.Abort() // a no-op once committed
	if err := write(f); err != nil {
		return err
	}
	return f.Commit()
}
