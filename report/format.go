package report

import "io"

// WriteOptions are what the CLI knows about where a report goes; each writer uses what
// applies to it.
type WriteOptions struct {
	// Color allows terminal colours (the CLI sets it for a terminal without NO_COLOR).
	Color bool
	// Verbose asks for the transcript (Build must have been given Verbose too).
	Verbose bool
	// Width is the terminal's width in columns, for the text report (0: its default).
	Width int
	// SARIFArtifact is the file SARIF results point at ("" for a reference made from the
	// target).
	SARIFArtifact string
}

// Format is one output format of the report.
type Format struct {
	Name        string
	Description string
	Write       func(w io.Writer, r *Report, o WriteOptions) error
}

// Formats lists the output formats, the default first. A new format is a file holding its
// writer and a constructor like jsonFormat, plus its line here; the CLI's --format flag,
// its validation and its help text all come from this list.
func Formats() []Format {
	return []Format{
		textFormat(),
		jsonFormat(),
		junitFormat(),
		sarifFormat(),
		githubFormat(),
		markdownFormat(),
	}
}

// LookupFormat finds a format by name.
func LookupFormat(name string) (Format, bool) {
	for _, f := range Formats() {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

// FormatNames lists the format names, for help and error messages.
func FormatNames() []string {
	var names []string
	for _, f := range Formats() {
		names = append(names, f.Name)
	}
	return names
}
