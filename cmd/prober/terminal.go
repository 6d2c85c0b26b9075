package main

import (
	"io"
	"strconv"
	"strings"
)

// reportWidth is the width the text report wraps at: the terminal's when the report goes to
// one, else COLUMNS when it is set (a CI system or a user saying how wide the log is), else
// 0, the report's default.
func (e environment) reportWidth(sink *reportSink) int {
	if !sink.toFile {
		if n := terminalWidth(sink.w); n > 0 {
			return n
		}
	}
	if v, ok := e.lookupEnv("COLUMNS"); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
			return n
		}
	}
	return 0
}

// useColor decides on colours for the report. --no-color and NO_COLOR (set to anything but
// "", as no-color.org asks) turn them off whatever else is set; FORCE_COLOR or CLICOLOR_FORCE
// (set to anything but "" and "0") turn them on where the report is not a terminal, for CI
// systems whose logs render ANSI colours; otherwise only a terminal gets them. A report
// written with -o to a file never does: a file is read by programs and editors.
func useColor(noColor bool, lookupEnv func(string) (string, bool), w io.Writer, toFile bool) bool {
	if noColor || toFile {
		return false
	}
	if v, ok := lookupEnv("NO_COLOR"); ok && v != "" {
		return false
	}
	for _, name := range []string{"FORCE_COLOR", "CLICOLOR_FORCE"} {
		if v, ok := lookupEnv(name); ok && v != "" && v != "0" && !strings.EqualFold(v, "false") {
			return true
		}
	}
	return isTerminal(w)
}
