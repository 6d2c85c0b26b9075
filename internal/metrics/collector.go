package metrics

import (
	"fmt"
	"slices"
	"strings"
)

// Collector is what a Registry exposes: one of this package's metrics or collectors. The
// interface is closed so that every family the registry writes is one it validated.
type Collector interface {
	// names lists the families the collector exposes, for Register to refuse a name twice.
	names() []string
	// collect appends the current state of the collector's families to dst.
	collect(dst []family) []family
}

// Opts name and describe a counter or a gauge.
type Opts struct {
	// Name is the full metric name, e.g. mcpwatch_probes_total.
	Name string
	Help string
}

// kind is a family's type as the exposition format names it.
type kind string

const (
	kindCounter   kind = "counter"
	kindGauge     kind = "gauge"
	kindHistogram kind = "histogram"
)

// family is one metric family at collection time.
type family struct {
	name   string
	help   string
	kind   kind
	series []series
}

// series is one labelled series of a family.
type series struct {
	labels []label // sorted by name
	value  float64 // counters and gauges
	// Histograms only: the upper bounds without +Inf, the cumulative counts of each bound
	// then of +Inf (which is the count), and the sum.
	bounds []float64
	counts []uint64
	sum    float64
}

type label struct {
	name, value string
}

// desc is what every metric of a family shares.
type desc struct {
	name string
	help string
}

func newDesc(o Opts) desc {
	if !validMetricName(o.Name) {
		panic(fmt.Sprintf("metrics: %q is not a valid metric name", o.Name))
	}
	return desc{name: o.Name, help: o.Help}
}

func (d desc) names() []string { return []string{d.name} }

// single is the family of a metric without labels.
func (d desc) single(k kind, s series) family {
	return family{name: d.name, help: d.help, kind: k, series: []series{s}}
}

// validMetricName says whether name matches [a-zA-Z_:][a-zA-Z0-9_:]*.
func validMetricName(name string) bool { return validName(name, true) }

// validLabelName says whether name matches [a-zA-Z_][a-zA-Z0-9_]* and is not one of the
// names Prometheus reserves (a leading "__").
func validLabelName(name string) bool {
	return validName(name, false) && !strings.HasPrefix(name, "__")
}

// validName says whether name is letters, '_', digits but not first, and, when colon, ':'.
func validName(name string, colon bool) bool {
	if name == "" {
		return false
	}
	for i := range len(name) {
		c := name[i]
		if !(c == '_' || colon && c == ':' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// checkLabelNames panics unless names are valid, distinct and none of reserved.
func checkLabelNames(metric string, names []string, reserved ...string) {
	for i, n := range names {
		if !validLabelName(n) || slices.Contains(reserved, n) {
			panic(fmt.Sprintf("metrics: %s: %q is not a valid label name", metric, n))
		}
		if slices.Contains(names[:i], n) {
			panic(fmt.Sprintf("metrics: %s: label %q given twice", metric, n))
		}
	}
}
