package transfer

import (
	"errors"
	"fmt"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/internal/crew"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
)

// slotSet is one set's turn in a lane's cycle (staged: one staging
// buffer's): the copies last queued from or to it, and what to do once
// the device finished them. A set is reused only after its done event
// completed, so the next set's store calls can fill one buffer while the
// device copies another.
type slotSet struct {
	buffer int
	start  cuda.Event // recorded before the copies; nil without stats
	done   cuda.Event // recorded after them
	busy   bool       // copies queued and not waited for yet
	// items are the set's pages (loads: once queued, those counted as
	// landed when the copies finished; saves: the pages to put).
	items []pageItem
	// scratch holds the arguments and answers of the set's store calls
	// and its copies.
	scratch *setScratch
	// releases end the views the copies read (direct loads).
	releases []func()
	// reserved holds the values the copies write in place until they are
	// committed (direct saves); finish aborts what is still reserved.
	reserved []pool.Reservation
	// descs is the set's copies in kernel mode, whose descriptors the
	// store calls write (direct sets and staged loads' sets) or a staged
	// save's goroutine (nil in the other modes).
	descs *cuda.DescSet
}

func newSlotSet(dev cuda.Device, buffer int, timed bool) (*slotSet, error) {
	s := &slotSet{buffer: buffer}
	var err error
	if s.done, err = dev.NewEvent(); err != nil {
		return nil, err
	}
	if timed {
		if s.start, err = dev.NewEvent(); err != nil {
			s.done.Destroy()
			return nil, err
		}
	}
	return s, nil
}

// takeItems makes items (a batch of lane.nextBatch, which stays as it is
// for the call) the set's pages and lays out their places, for calls store
// calls: in kernel mode (s.descs), with the descriptors of their copies of
// kind; else their copies alone.
func (s *slotSet) takeItems(items []pageItem, kind cuda.CopyKind, calls int) error {
	s.items = items
	s.scratch.fitCalls(calls)
	if s.descs == nil {
		s.scratch.place(s.items)
		return nil
	}
	return s.scratch.placeDescribed(s.descs, s.items, kind, calls)
}

// finish forgets the set's copies, ends its views and aborts what it
// still holds reserved.
func (s *slotSet) finish() {
	for _, r := range s.reserved {
		if r != nil { // nil: the Reserve call failed
			r.Abort()
		}
	}
	clear(s.reserved)
	s.reserved = s.reserved[:0]
	runAll(s.releases)
	clear(s.releases)
	s.releases = s.releases[:0]
	s.busy = false
}

func (s *slotSet) destroy() error {
	var errs []error
	if s.start != nil {
		errs = append(errs, s.start.Destroy())
	}
	if s.descs != nil {
		errs = append(errs, s.descs.Close())
	}
	return errors.Join(append(errs, s.done.Destroy())...)
}

// pipeline is one load or save call's use of a lane's slot sets.
type pipeline struct {
	l   *lane
	clk *phaseClock
	// landed is called for each set whose copies completed (nil: nothing
	// to do).
	landed func(s *slotSet)
	// device sums the sets' device copy times (with stats).
	device deviceTimer
	// after ends the views of completed sets (direct loads) and commits
	// their reservations (direct saves); nil: at once.
	after *finisher
	// draining is set by drain: the views of the sets it completes end on
	// the crew (direct loads with a finisher), posted as each set's
	// copies finished; ending holds those tasks, which end waits for.
	draining bool
	ending   []*crew.Task
	// last is the set whose copies were queued last; dirty says the
	// stream has work queued since its last synchronize.
	last  *slotSet
	dirty bool
}

// acquire hands out the lane's next set, first waiting (charged to sync)
// for the device to finish the copies last queued with it.
func (p *pipeline) acquire() (*slotSet, error) {
	l := p.l
	s := l.sets[l.next]
	l.next = (l.next + 1) % len(l.sets)
	if err := p.wait(s); err != nil {
		return nil, err
	}
	return s, nil
}

// peek is the set acquire hands out next.
func (p *pipeline) peek() *slotSet { return p.l.sets[p.l.next] }

// wait waits for s's copies, if any, and completes them: through its
// event while later copies are queued behind them, else by synchronizing
// the stream, which also reports the failures of earlier asynchronous work.
func (p *pipeline) wait(s *slotSet) error {
	if !s.busy {
		return nil
	}
	var err error
	if s == p.last && p.dirty {
		err = p.l.copier.Synchronize(p.l.stream)
		p.dirty = false
	} else {
		err = s.done.Synchronize()
	}
	p.clk.lap(stats.PhaseSync)
	if err != nil {
		s.finish()
		return fmt.Errorf("waiting for the copies of staging buffer %d: %w", s.buffer, err)
	}
	p.complete(s)
	return nil
}

// complete accounts for s's finished copies and frees the set.
func (p *pipeline) complete(s *slotSet) {
	p.device.add(s.start, s.done)
	if p.landed != nil {
		p.landed(s)
	}
	if p.after != nil {
		if p.draining {
			p.endOnCrew(s.releases)
		} else {
			p.after.hand(s.releases)
		}
		s.releases = nil
	}
	s.finish()
}

// endOnCrew posts fs, the views of a set whose copies finished, to the
// lane's crew, for end to wait for.
func (p *pipeline) endOnCrew(fs []func()) {
	if len(fs) == 0 {
		return
	}
	p.ending = append(p.ending, p.l.crew.Post(len(fs), func(j int) error {
		if fs[j] != nil { // nil: its store call never ran
			fs[j]()
		}
		return nil
	}))
}

// submit queues copies of set s's batch, charged to phase; s.items must
// already name the batch's pages.
func (p *pipeline) submit(s *slotSet, kind cuda.CopyKind, copies []cuda.Copy, phase stats.Phase) error {
	return p.queue(s, func() error { return p.l.copier.Copy(p.l.stream, kind, copies) }, phase)
}

// launch queues the copies of set s, described (s.descs), charged to
// phase; their runs are joined before the set's start event is recorded,
// so that the set's device time does not count the join when the device
// has nothing queued. Joined after it, direct saves of 4 KiB pages on the
// H200 (run 37, 2026-12-05) spent 5.2-5.4 ms per GiB from the start event
// to the launch, and their device time exceeded the link's by 2.9-4.4 ms
// (docs/benchmarks.md).
func (p *pipeline) launch(s *slotSet, phase stats.Phase) error {
	s.descs.Join()
	return p.queue(s, func() error { return p.l.copier.LaunchSet(p.l.stream, s.descs) }, phase)
}

// queue queues set s's copies with copy between its events, charged to
// phase.
func (p *pipeline) queue(s *slotSet, copy func() error, phase stats.Phase) error {
	l := p.l
	s.busy, p.last, p.dirty = true, s, true
	var err error
	if s.start != nil {
		if err = p.device.begin(l.stream); err == nil {
			err = s.start.Record(l.stream)
		}
	}
	if err == nil {
		err = copy()
	}
	if err == nil {
		err = l.copier.Record(s.done, l.stream)
	}
	p.clk.lap(phase)
	if err != nil {
		return fmt.Errorf("%s: %w", phase, err)
	}
	return nil
}

// drain waits for the sets still busy, oldest first, and completes
// each as its copies finish: the views of a direct load's sets then end
// on the crew (endOnCrew) while the device copies the sets after them.
// After a failure the stream is synchronized and the sets left are only
// freed, as are the sets never queued (their views end at once). Every
// call ends with drain, so no copy outlives it.
//
// Until 2026-12-05 drain synchronized the stream once and then ended the
// views of the up to four sets it completed on the crew, whose helpers
// had parked meanwhile: in an execution trace of a direct load of 1 GiB
// of 4 KiB pages on an H100 (run 59), 0.21 ms from the post to the last
// view's end and 0.35 ms from the stream's last copy to the call's end,
// of a 21.8 ms transfer.
func (p *pipeline) drain() error {
	l := p.l
	p.draining = true
	var err error
	for i := range l.sets {
		if s := l.sets[(l.next+i)%len(l.sets)]; s.busy {
			if err = p.wait(s); err != nil {
				break
			}
		}
	}
	if p.dirty { // a wait failed before the stream's
		p.dirty = false
		_ = l.copier.Synchronize(l.stream) // the failure is err
		p.clk.lap(stats.PhaseSync)
	}
	for _, s := range l.sets {
		s.finish()
	}
	return err
}

// end finishes what the call's sets left to do and waits for it: the
// views of the sets drain completed end on the lane's crew, then the
// finisher ends what was handed to it before. Handed to the finisher, the
// views of a direct load's last sets (16,384 of 4 KiB pages) took it 0.3
// ms on the H200 while the call waited, and the call's goroutine another
// 0.15 ms to get a processor back from the crew's spinning helpers; ended
// on the crew, loads of 1 GiB of 4 KiB pages moved 0.86, 0.87 and 0.86 of
// the link against 0.84, 0.81 and 0.84 in the same run
// (docs/benchmarks.md, "The ends of a direct load").
func (p *pipeline) end() {
	for _, t := range p.ending {
		t.Wait()
	}
	p.ending = nil
	p.after.close()
}
