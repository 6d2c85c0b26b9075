package metrics

var (
	_ Collector = (*Gauge)(nil)
	_ Collector = (*GaugeVec)(nil)
	_ Collector = (*GaugeFunc)(nil)
)

// Gauge is a value that goes up and down. Safe for concurrent use.
type Gauge struct {
	desc
	v atomicFloat
}

// NewGauge makes a gauge; it panics if o.Name is not a valid metric name.
func NewGauge(o Opts) *Gauge {
	return &Gauge{desc: newDesc(o)}
}

// Set sets the value to v.
func (g *Gauge) Set(v float64) { g.v.store(v) }

// Inc adds 1.
func (g *Gauge) Inc() { g.v.add(1) }

// Dec subtracts 1.
func (g *Gauge) Dec() { g.v.add(-1) }

// Add adds d, which may be negative.
func (g *Gauge) Add(d float64) { g.v.add(d) }

// Value is the current value.
func (g *Gauge) Value() float64 { return g.v.load() }

func (g *Gauge) collect(dst []family) []family {
	return append(dst, g.single(kindGauge, series{value: g.Value()}))
}

// GaugeVec is a gauge per combination of label values. Safe for concurrent use.
type GaugeVec struct {
	v *vec[Gauge]
}

// NewGaugeVec makes a gauge with the label names labelNames; it panics if a name is invalid.
func NewGaugeVec(o Opts, labelNames []string) *GaugeVec {
	d := newDesc(o)
	checkLabelNames(d.name, labelNames)
	return &GaugeVec{v: newVec(d, labelNames, func() *Gauge { return &Gauge{desc: d} })}
}

// WithLabelValues is the gauge of values, given in the order of the constructor's label
// names; it panics if their number differs from the number of label names.
func (g *GaugeVec) WithLabelValues(values ...string) *Gauge { return g.v.with(values) }

func (g *GaugeVec) names() []string { return g.v.names() }

func (g *GaugeVec) collect(dst []family) []family {
	return g.v.collectAs(dst, kindGauge, func(m *Gauge) series { return series{value: m.Value()} })
}

// GaugeFunc is a gauge whose value a function gives at each collection, for values kept
// elsewhere (a connection pool's statistics).
type GaugeFunc struct {
	desc
	fn func() float64
}

// NewGaugeFunc makes a gauge read from fn, which must be safe for concurrent use; it panics if
// o.Name is not a valid metric name.
func NewGaugeFunc(o Opts, fn func() float64) *GaugeFunc {
	return &GaugeFunc{desc: newDesc(o), fn: fn}
}

func (g *GaugeFunc) collect(dst []family) []family {
	return append(dst, g.single(kindGauge, series{value: g.fn()}))
}
