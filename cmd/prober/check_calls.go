package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcpwatch/mcpwatch/internal/atomicfile"
	"github.com/mcpwatch/mcpwatch/internal/calls"
	"github.com/mcpwatch/mcpwatch/probe"
)

// applyCalls reads the calls file of --calls (with its fromEnv values from the environment)
// into the probe's options, and adds the values it read from the environment to the
// secrets of the run. Without --calls it does nothing: the probe calls no listed tool.
func (cfg *checkConfig) applyCalls(lookupEnv func(string) (string, bool)) error {
	if cfg.calls == "" {
		return nil
	}
	data, err := os.ReadFile(cfg.calls)
	if err != nil {
		return fmt.Errorf("--calls: %w", err)
	}
	set, err := calls.Parse(cfg.calls, data, lookupEnv)
	if err != nil {
		return fmt.Errorf("--calls: %w", err)
	}
	cfg.options.Calls = set.Calls
	cfg.secrets = append(cfg.secrets, set.Secrets...)
	return nil
}

// writeCallsFlags are --write-calls FILE and --force: a starter calls file written from the
// tools the server lists, which never replaces a file unless asked to.
type writeCallsFlags struct {
	path  string // "" when not asked for, "-" for stdout
	force bool
}

func (w *writeCallsFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&w.path, "write-calls", "", "")
	fs.BoolVar(&w.force, "force", false, "")
}

// validate checks what can be checked before the probe, so that a file that exists or a
// folder that does not is said at once rather than after a probe of a minute.
func (w writeCallsFlags) validate(output, writeBaseline string) (writeCallsFlags, error) {
	switch {
	case w.force && w.path == "":
		return w, errors.New("--force applies to --write-calls: it lets it replace an existing file")
	case w.path == "":
		return w, nil
	case w.path == "-":
		if output == "" || output == "-" {
			return w, errors.New("--write-calls - writes the calls file to stdout, where the report goes: give the report a file with -o FILE")
		}
		return w, nil
	}
	for _, other := range []struct{ flag, path string }{{"--output", output}, {"--write-baseline", writeBaseline}} {
		if other.path != "" && filepath.Clean(other.path) == filepath.Clean(w.path) {
			return w, fmt.Errorf("--write-calls and %s name the same file %s", other.flag, w.path)
		}
	}
	if err := writablePath(w.path); err != nil {
		return w, fmt.Errorf("--write-calls: %w", err)
	}
	if fi, err := os.Stat(w.path); err == nil && fi.Mode().IsRegular() && !w.force {
		return w, fmt.Errorf("--write-calls: %s exists: give --force to replace it, or another file", w.path)
	}
	return w, nil
}

// writeStarter writes the starter calls file of --write-calls from the probe's tools/list
// pages, every text from the server through clean (the run's redactor). It calls no tool.
// The message it returns is for stderr: where the file went and what to do with it.
func (w writeCallsFlags) writeStarter(res *probe.Result, stdout io.Writer, clean func(string) string) (string, error) {
	s, err := calls.StarterFromResult(res)
	if err != nil {
		return "", fmt.Errorf("--write-calls: no file written: %w", err)
	}
	write := func(out io.Writer) error { return calls.WriteStarter(out, s, clean) }
	where := w.path
	if w.path == "-" {
		where = "stdout"
		err = write(stdout)
	} else {
		err = w.writeFile(write)
	}
	if err != nil {
		return "", fmt.Errorf("--write-calls %s: %w", w.path, err)
	}
	msg := fmt.Sprintf("wrote a calls file of %d tools to %s, every call commented out: uncomment those safe to run, then give it to --calls", len(s.Tools), where)
	if s.Incomplete != "" {
		msg += "\n  the tool list was incomplete, so tools may be missing: " + s.Incomplete
	}
	return msg, nil
}

// writeFile writes the file in one piece, never over an existing file unless --force.
func (w writeCallsFlags) writeFile(write func(io.Writer) error) error {
	f, err := atomicfile.Create(w.path)
	if err != nil {
		return fmt.Errorf("cannot be written: %w", err)
	}
	defer f.Abort() // a no-op once committed
	if err := write(f); err != nil {
		return err
	}
	if w.force {
		return f.Commit()
	}
	if err := f.CommitNew(); errors.Is(err, fs.ErrExist) {
		return errors.New("the file appeared during the probe: give --force to replace it")
	} else if err != nil {
		return err
	}
	return nil
}
