package chart

import (
	"fmt"
	"math"
	"strconv"

	"github.com/kvctl/kvctl/size"
	"gonum.org/v1/plot"
)

// maxLabels is the most labelled ticks an axis gets.
const maxLabels = 12

// bytesTicks mark a log-scaled axis of byte counts at powers of two,
// labelled as sizes (64KiB, 1GiB), at most maxLabels of them.
type bytesTicks struct{}

// Ticks returns the ticks between min and max.
func (bytesTicks) Ticks(min, max float64) []plot.Tick {
	lo, hi := int(math.Floor(math.Log2(min))), int(math.Ceil(math.Log2(max)))
	step := (hi-lo)/maxLabels + 1
	var ticks []plot.Tick
	first := lo
	if math.Exp2(float64(lo)) < min {
		first++
	}
	for e := first; e <= hi; e++ {
		v := math.Exp2(float64(e))
		if v > max {
			break
		}
		t := plot.Tick{Value: v}
		if (e-first)%step == 0 {
			t.Label = size.Format(int64(v))
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// ratioTicks label a GB/s axis with each tick's ratio to a baseline as
// well: "40 (0.73x)".
type ratioTicks struct{ baseline float64 }

// Ticks returns about five labelled ticks at round values between min
// and max, with unlabelled ones between.
func (r ratioTicks) Ticks(min, max float64) []plot.Tick {
	step := roundStep((max - min) / 6)
	var ticks []plot.Tick
	for v := math.Ceil(min/step) * step; v <= max+step/1e6; v += step / 2 {
		t := plot.Tick{Value: v}
		if k := math.Round(v / step * 2); int(k)%2 == 0 {
			t.Label = strconv.FormatFloat(v, 'g', 4, 64)
			if r.baseline > 0 {
				t.Label = fmt.Sprintf("%s (%.2fx)", t.Label, v/r.baseline)
			}
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// roundStep is the smallest of 1, 2 and 5 times a power of ten at least x.
func roundStep(x float64) float64 {
	if x <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// padLogRange widens [min, max] of a log-scaled axis by a factor on each
// side, so points do not sit on the frame.
func padLogRange(p *plot.Axis) {
	if p.Min > 0 && p.Max > 0 {
		p.Min /= 1.5
		p.Max *= 1.5
	}
}

// fractionTicks mark a 0..1 axis every 0.1, labelled every 0.2.
type fractionTicks struct{}

// Ticks returns the ticks between min and max.
func (fractionTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for i := 0; i <= 10; i++ {
		v := float64(i) / 10
		if v < min || v > max {
			continue
		}
		t := plot.Tick{Value: v}
		if i%2 == 0 {
			t.Label = strconv.FormatFloat(v, 'f', 1, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}
