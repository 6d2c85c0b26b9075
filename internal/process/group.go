package process

import (
	"crypto/rand"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"time"
)

// markEnv is set, to a token of the Group, in the environment of every leader. Children
// inherit it unless they clear their environment, so it tells which processes belong to
// which Group even after they left its process group and were re-parented.
const markEnv = "MCPWATCH_PROBE_PROCESS"

// Group is a child process started as the leader of a process group of its own, and every
// process that descends from it. Terminate and Kill signal the group; FindStrays, KillStrays
// and Reap deal with what left it. A Group is used by one goroutine at a time, except Done,
// Exit and Exiting, which any may call.
type Group struct {
	cmd    *exec.Cmd
	pid    int
	strays *strays
	done   chan struct{} // closed once the leader was waited for
	exit   Exit          // set before done is closed
}

// Exit is how the leader ended.
type Exit struct {
	// Code is the exit status, -1 when a signal killed the leader or the status is unknown.
	Code int
	// Signal names the signal that killed the leader ("SIGKILL"), or is "".
	Signal string
	// Detail says it in a few words, for a transcript.
	Detail string
}

// Start starts cmd, which must not have been started, as the leader of a new process group
// marked as this Group's; cmd.Env (the prober's environment when nil) gets the mark last, so
// that nothing in it overrides the mark. Where the system allows, the leader dies with the
// thread that started it, and so with the prober.
func Start(cmd *exec.Cmd) (*Group, error) {
	mark := rand.Text()
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(slices.Clip(env), markEnv+"="+mark)
	g := &Group{cmd: cmd, done: make(chan struct{})}
	started := make(chan error, 1)
	go g.run(started)
	if err := <-started; err != nil {
		return nil, err
	}
	g.pid = cmd.Process.Pid
	g.strays = newStrays(mark, g.pid)
	return g, nil
}

// run starts the leader and then waits for it, on one OS thread for the whole life of the
// process. On Linux the leader gets SIGKILL as its parent-death signal, so that it does not
// run on when the prober is killed outright (no shutdown sequence runs then), and the kernel
// sends that signal when the thread that started the child ends, not the process: Go ends a
// thread whenever a goroutine exits while locked to it, whichever goroutine that is. Locking
// the starting thread here until Wait returns keeps it alive exactly as long as the child,
// and costs no thread of its own: Wait holds one in a blocking system call regardless. A
// single starter thread for the whole program would serve as well, but would be state of the
// program rather than of the Group. started gets the outcome of the start.
func (g *Group) run(started chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := startInGroup(g.cmd); err != nil {
		started <- err
		return
	}
	started <- nil
	waitErr := g.cmd.Wait()
	g.exit = describeExit(g.cmd.ProcessState)
	if g.cmd.ProcessState == nil && waitErr != nil {
		g.exit.Detail = "waiting for the process: " + waitErr.Error()
	}
	close(g.done)
}

// PID is the leader's process id, which is also the id of its process group.
func (g *Group) PID() int { return g.pid }

// Done is closed once the leader has ended and was waited for.
func (g *Group) Done() <-chan struct{} { return g.done }

// Exit is how the leader ended; the zero Exit until Done is closed.
func (g *Group) Exit() Exit {
	select {
	case <-g.done:
		return g.exit
	default:
		return Exit{}
	}
}

// Exiting reports whether the leader has ended or begun to end, even before Wait reaped it:
// the kernel closes a dying process's pipes before it makes it a zombie, so a caller that saw
// the pipes close can tell a leader that died on its own from one that ends because it was
// asked to. Where the system cannot tell without reaping, it reports false.
func (g *Group) Exiting() bool { return exitingOrExited(g.pid) }

// Terminate sends SIGTERM to every process of the group.
func (g *Group) Terminate() error { return terminateGroup(g.pid) }

// Kill sends SIGKILL to every process of the group.
func (g *Group) Kill() error { return killGroup(g.pid) }

// FindStrays looks for the processes that carry the Group's mark (and their descendants)
// outside its process group, and holds on to them, so that one that ends on its own
// meanwhile is still known, and reaped if it was re-parented here. Call it while the leader
// still runs: once the leader is gone a daemon's first parent may be too.
func (g *Group) FindStrays() { g.strays.find() }

// KillStrays sends SIGKILL to every stray found, and to those they forked meanwhile.
func (g *Group) KillStrays() { g.strays.killAll() }

// Reap collects the members of the group and the strays that were re-parented to this
// process (see AdoptOrphans) and died, so that they do not stay zombies, and says how many
// of each it reaped. It gives up at deadline. Members of the group are reaped only once the
// leader was waited for, since reaping the group could otherwise steal the leader's exit
// status from Wait.
func (g *Group) Reap(deadline time.Time) (members, strays int) {
	select {
	case <-g.done:
		members = reapGroup(g.pid, deadline)
	default:
	}
	return members, g.strays.reap(deadline)
}

// Release lets go of the strays still held. The Group is not to be used afterwards.
func (g *Group) Release() { g.strays.release() }
