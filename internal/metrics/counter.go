package metrics

import "fmt"

var (
	_ Collector = (*Counter)(nil)
	_ Collector = (*CounterVec)(nil)
)

// Counter is a value that only goes up. Safe for concurrent use.
type Counter struct {
	desc
	v atomicFloat
}

// NewCounter makes a counter; it panics if o.Name is not a valid metric name.
func NewCounter(o Opts) *Counter {
	return &Counter{desc: newDesc(o)}
}

// Inc adds 1.
func (c *Counter) Inc() { c.v.add(1) }

// Add adds d, which must not be negative: a counter that went down would read as a restart.
func (c *Counter) Add(d float64) {
	if d < 0 {
		panic(fmt.Sprintf("metrics: counter %s cannot decrease (Add(%v))", c.name, d))
	}
	c.v.add(d)
}

// Value is the current value.
func (c *Counter) Value() float64 { return c.v.load() }

func (c *Counter) collect(dst []family) []family {
	return append(dst, c.single(kindCounter, series{value: c.Value()}))
}

// CounterVec is a counter per combination of label values. Safe for concurrent use.
type CounterVec struct {
	v *vec[Counter]
}

// NewCounterVec makes a counter with the label names labelNames; it panics if a name is
// invalid.
func NewCounterVec(o Opts, labelNames []string) *CounterVec {
	d := newDesc(o)
	checkLabelNames(d.name, labelNames)
	return &CounterVec{v: newVec(d, labelNames, func() *Counter { return &Counter{desc: d} })}
}

// WithLabelValues is the counter of values, given in the order of the constructor's label
// names; it panics if their number differs from the number of label names.
func (c *CounterVec) WithLabelValues(values ...string) *Counter { return c.v.with(values) }

func (c *CounterVec) names() []string { return c.v.names() }

func (c *CounterVec) collect(dst []family) []family {
	return c.v.collectAs(dst, kindCounter, func(m *Counter) series { return series{value: m.Value()} })
}
