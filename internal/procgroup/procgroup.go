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
	var (
		copies  sync.WaitGroup
		parents []*os.File // our ends, closed when Run returns
		childs  []*os.File // the child's ends, closed once it has started
	)
	closeAll := func(files []*os.File) {
		for _, f := range files {
			_ = f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err != nil {
			closeAll(parents)
			closeAll(childs)
			return nil, nil, fmt.Errorf("procgroup: pipe: %w", err)
		}
		return r, w, nil
	}
	var starts []func()
	if in := cmd.Stdin; in != nil {
		if _, ok := in.(*os.File); !ok {
			r, w, err := pipe()
			if err != nil {
				return err
			}
			cmd.Stdin, parents, childs = r, append(parents, w), append(childs, r)
			starts = append(starts, func() {
				defer copies.Done()
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
		r, w, err := pipe()
		if err != nil {
			return err
		}
		*out, parents, childs = w, append(parents, r), append(childs, w)
		starts = append(starts, func() {
			defer copies.Done()
			if _, err := io.Copy(dst, r); err != nil {
				_ = r.Close() // the writer refused more: the child gets EPIPE
			}
		})
	}
	if err := cmd.Start(); err != nil {
		closeAll(parents)
		closeAll(childs)
		return err
	}
	closeAll(childs)
	copies.Add(len(starts))
	for _, start := range starts {
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

	drained := make(chan struct{})
	go func() { // owned by Run: ends when every copy has ended
		copies.Wait()
		close(drained)
	}()
	timer := time.NewTimer(drain)
	defer timer.Stop()
	select {
	case <-drained:
	case <-timer.C:
		closeAll(parents) // unblocks the copies
		<-drained
		if err == nil {
			err = fmt.Errorf("a process outside the command's group kept its output open for %s: %w", drain, exec.ErrWaitDelay)
		}
	}
	closeAll(parents)
	return err
}
