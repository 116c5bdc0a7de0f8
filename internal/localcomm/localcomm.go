package localcomm

import (
	"errors"
	"sync"
)

// ErrMismatch is returned by every rank when the ranks of one collective
// call pass buffers of different lengths: their fits have diverged.
var ErrMismatch = errors.New("localcomm: ranks reduced buffers of different lengths")

// group is the state the ranks of one New share.
type group struct {
	mu    sync.Mutex
	cond  *sync.Cond
	size  int
	bufs  [][]float64 // this round's buffers, by rank
	in    int         // ranks that have deposited this round
	out   int         // ranks that have collected this round
	round int
}

// Comm is one rank of a group. It implements kernelop.Comm.
type Comm struct {
	g    *group
	rank int
}

// New returns the size ranks of a group, rank p at index p.
func New(size int) []*Comm {
	g := &group{size: size, bufs: make([][]float64, size)}
	g.cond = sync.NewCond(&g.mu)
	cs := make([]*Comm, size)
	for p := range cs {
		cs[p] = &Comm{g: g, rank: p}
	}
	return cs
}

func (c *Comm) Rank() int { return c.rank }
func (c *Comm) Size() int { return c.g.size }

// AllreduceSum waits for every rank's buf, then sets each to the sum
// taken in rank order (the same bits on every rank).
func (c *Comm) AllreduceSum(buf []float64) error {
	g := c.g
	g.mu.Lock()
	defer g.mu.Unlock()
	round := g.round
	g.bufs[c.rank] = buf
	g.in++
	if g.in == g.size {
		g.cond.Broadcast()
	}
	for g.in < g.size && g.round == round {
		g.cond.Wait()
	}
	var err error
	sum := make([]float64, len(buf))
	for _, b := range g.bufs {
		if len(b) != len(buf) {
			err = ErrMismatch
			break
		}
		for i, v := range b {
			sum[i] += v
		}
	}
	// Nobody may write its result until every rank has read every buffer.
	g.out++
	if g.out == g.size {
		g.cond.Broadcast()
	}
	for g.out < g.size && g.round == round {
		g.cond.Wait()
	}
	if err == nil {
		copy(buf, sum)
	}
	// The last rank to leave opens the next round.
	if g.out == g.size && g.round == round {
		g.in, g.out = 0, 0
		g.round++
		clear(g.bufs)
		g.cond.Broadcast()
	}
	return err
}
