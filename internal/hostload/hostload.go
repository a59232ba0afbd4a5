// Package hostload measures how busy the rest of the machine kept its
// cores while a measurement ran: the machine's CPU time, read from Linux's
// /proc/stat (through github.com/prometheus/procfs), less the process's
// own (getrusage), over the wall time between two samples; and the time
// the hypervisor ran something else while a virtual CPU had work (steal).
//
// kvctl bench reports it because a transfer's figure depends on it: on a
// 16-core H100 virtual machine one other busy thread took staged
// transfers of 4 KiB pages with a copy thread on every core from 0.74-0.88
// of the link to 0.40-0.58 (docs/benchmarks.md, "Copy crews beside a busy
// thread").
//
// /proc/stat counts in ticks (USER_HZ, 100 a second on Linux), so a
// figure over s seconds on c cores is within about c/100/s cores
// (Load.Within): 0.03 on 16 cores over 5 s, 20 cores over 8 ms. Where
// there is no /proc/stat (not Linux) Take says so and no figure is made.
package hostload

import (
	"errors"
	"time"

	"github.com/prometheus/procfs"
)

// Sample is the machine's and the process's CPU time at one moment.
type Sample struct {
	at    time.Time
	busy  time.Duration // every CPU's time running anything, summed
	steal time.Duration // every CPU's time taken by the hypervisor
	self  time.Duration // the process's CPU time, user and system
	cpus  int           // the machine's CPUs
}

// Load is what the rest of the machine did between two samples.
type Load struct {
	// Seconds is the wall time between the samples.
	Seconds float64
	// OthersCores is how many cores other programs (and the kernel's own
	// work) kept busy on average: the machine's CPU time less the
	// process's, over Seconds; at least 0.
	OthersCores float64
	// StealCores is how many cores' worth of time the hypervisor gave
	// to others while the machine's CPUs had work, over Seconds.
	StealCores float64
	// Within is how far the figures may be off: a tick of every CPU
	// over Seconds, in cores.
	Within float64
}

// source reads the machine's CPU times and the process's.
type source struct {
	fs   procfs.FS
	self func() (time.Duration, error)
	now  func() time.Time
}

// Take samples the machine's and the process's CPU time now; it fails
// where the machine does not say (no /proc/stat).
func Take() (Sample, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return Sample{}, err
	}
	return source{fs: fs, self: ProcessCPU, now: time.Now}.take()
}

func (src source) take() (Sample, error) {
	st, err := src.fs.Stat()
	if err != nil {
		return Sample{}, err
	}
	self, err := src.self()
	if err != nil {
		return Sample{}, err
	}
	t := st.CPUTotal
	busy := t.User + t.Nice + t.System + t.IRQ + t.SoftIRQ // guest time is counted in user
	return Sample{at: src.now(), busy: seconds(busy), steal: seconds(t.Steal), self: self, cpus: max(1, len(st.CPU))}, nil
}

// tick is /proc/stat's unit: Linux's USER_HZ is 100.
const tick = 10 * time.Millisecond

// errBackwards is Since's error for samples out of order.
var errBackwards = errors.New("hostload: the later sample is not later")

// Since is the load between prev and s, s taken after prev.
func (s Sample) Since(prev Sample) (Load, error) {
	wall := s.at.Sub(prev.at)
	if wall <= 0 || s.busy < prev.busy || s.self < prev.self {
		return Load{}, errBackwards
	}
	others := (s.busy - prev.busy) - (s.self - prev.self)
	return Load{
		Seconds:     wall.Seconds(),
		OthersCores: max(0, others.Seconds()/wall.Seconds()),
		StealCores:  max(0, (s.steal-prev.steal).Seconds()/wall.Seconds()),
		Within:      float64(s.cpus) * tick.Seconds() / wall.Seconds(),
	}, nil
}

// seconds turns procfs's seconds into a duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
