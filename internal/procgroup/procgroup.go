// Package procgroup starts child processes in a process group of their own
// and kills the whole group, so that what a child started (a launcher's
// server, a shell script's background job) ends with it.
//
// Linux only, as the rest of codemode's process handling: it uses
// Setpgid and Pdeathsig from syscall.SysProcAttr.
package procgroup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Isolate makes cmd start in a new process group whose id is the child's
// pid, and asks the kernel to SIGKILL the child if the thread that started
// it exits (Pdeathsig: a host killed with SIGKILL takes the child along).
// Other fields of cmd.SysProcAttr are kept. Call it before cmd.Start.
func Isolate(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pgid = 0
	if cmd.SysProcAttr.Pdeathsig == 0 {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
}

// Kill sends SIGKILL to the process group of cmd, started after Isolate. It
// does nothing for a command that was not started, and a group that has
// already ended is not an error.
//
// # Notes
//   - Only processes still in the group die: one that called setsid or
//     setpgid itself has left it.
//   - Call it while the group can still have members (before Wait, or at
//     once after it, as Run does): a group id whose processes have all ended
//     may be reused by the kernel.
func Kill(cmd *exec.Cmd) error {
	if cmd == nil || cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("killing process group %d: %w", cmd.Process.Pid, err)
	}
	return nil
}

// Run runs cmd (made with exec.Command, not CommandContext) to completion in
// a process group of its own: it starts it, waits for it to exit, then kills
// what is left of its group (background children it started) and waits at
// most drain for its standard streams to be closed by processes that escaped
// the group. Cancelling ctx kills the whole group at once.
//
// cmd.Stdin, cmd.Stdout and cmd.Stderr may be any reader and writers; Run
// copies them through pipes of its own so that a background child holding a
// pipe open cannot make it wait past the group's end. A writer that fails
// (an output limit) closes its pipe, so the child gets EPIPE and is not
// blocked on a full pipe.
//
// It returns cmd.Wait's error (an *exec.ExitError for a non-zero exit), a
// start error, or, when the command succeeded but a stream stayed open
// longer than drain, an error wrapping exec.ErrWaitDelay.
func Run(ctx context.Context, cmd *exec.Cmd, drain time.Duration) error {
	Isolate(cmd)
	p := &piping{}
	if err := p.plumb(cmd); err != nil {
		p.closeAll()
		return err
	}
	if err := cmd.Start(); err != nil {
		p.closeAll()
		return err
	}
	closeFiles(p.childs)
	p.copies.Add(len(p.starts))
	for _, start := range p.starts {
		go start()
	}
	exited := make(chan struct{})
	killed := make(chan struct{})
	go func() { // owned by Run: ends when the child exits or ctx is done
		defer close(killed)
		select {
		case <-ctx.Done():
			_ = Kill(cmd)
		case <-exited:
		}
	}()
	err := cmd.Wait()
	close(exited)
	<-killed
	_ = Kill(cmd) // background children left in the group
	if derr := p.drain(drain); err == nil {
		err = derr
	}
	return err
}

// piping is Run's own pipes between a command and its streams.
type piping struct {
	copies  sync.WaitGroup
	parents []*os.File // our ends, closed when Run returns
	childs  []*os.File // the child's ends, closed once it has started
	starts  []func()   // the copies, started once the child has
}

func closeFiles(files []*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// closeAll closes both ends of every pipe.
func (p *piping) closeAll() {
	closeFiles(p.parents)
	closeFiles(p.childs)
}

// plumb replaces the command's streams that are not files by pipes, and
// prepares the copies between them.
func (p *piping) plumb(cmd *exec.Cmd) error {
	if in := cmd.Stdin; in != nil {
		if _, ok := in.(*os.File); !ok {
			r, w, err := os.Pipe()
			if err != nil {
				return fmt.Errorf("procgroup: pipe: %w", err)
			}
			cmd.Stdin, p.parents, p.childs = r, append(p.parents, w), append(p.childs, r)
			p.starts = append(p.starts, func() {
				defer p.copies.Done()
				_, _ = io.Copy(w, in)
				_ = w.Close() // EOF for the child; EPIPE if it stopped reading
			})
		}
	}
	for _, out := range []*io.Writer{&cmd.Stdout, &cmd.Stderr} {
		dst := *out
		if dst == nil {
			continue
		}
		if _, ok := dst.(*os.File); ok {
			continue
		}
		r, w, err := os.Pipe()
		if err != nil {
			return fmt.Errorf("procgroup: pipe: %w", err)
		}
		*out, p.parents, p.childs = w, append(p.parents, r), append(p.childs, w)
		p.starts = append(p.starts, func() {
			defer p.copies.Done()
			if _, err := io.Copy(dst, r); err != nil {
				_ = r.Close() // the writer refused more: the child gets EPIPE
			}
		})
	}
	return nil
}

// drain waits at most d for the copies to end, then closes our ends; it
// returns an error wrapping exec.ErrWaitDelay when a stream stayed open
// longer.
func (p *piping) drain(d time.Duration) error {
	defer closeFiles(p.parents)
	drained := make(chan struct{})
	go func() { // owned by drain: ends when every copy has ended
		p.copies.Wait()
		close(drained)
	}()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-drained:
		return nil
	case <-timer.C:
		closeFiles(p.parents) // unblocks the copies
		<-drained
		return fmt.Errorf("a process outside the command's group kept its output open for %s: %w", d, exec.ErrWaitDelay)
	}
}
