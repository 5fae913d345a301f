package node

// Permission turns on Node.js's permission model (the --permission flag of
// Node.js 24) for the runtime's process: file system reads and writes are
// denied except under the listed paths, and child processes, worker
// threads, native addons and WASI are denied unless allowed. A program that
// touches what is denied gets an Error with code "ERR_ACCESS_DENIED" and,
// unless it catches it, fails its own execution; the runtime carries on.
//
//	node.New(node.Options{Permission: &node.Permission{
//		FSRead: []string{"/srv/data/"}, // a directory, with its contents
//	}})
//
// # Notes
//
//   - Node.js 24's permission model has no network permission: programs can
//     still open sockets and fetch. It is a seat belt for trusted code, not a
//     sandbox (Node.js documents that code already running can work around
//     it); use the QuickJS driver for untrusted programs.
//   - Paths are passed to Node.js as given, so a relative path is taken from
//     the process's working directory (Options.Dir). A path ending in "/"
//     or "*" allows what is under it; "*" alone allows every path.
//   - Node.js resolves `import` of packages by reading node_modules, which
//     then needs to be listed in FSRead; node: built-ins need nothing.
type Permission struct {
	// FSRead and FSWrite are the paths the process may read and write
	// (--allow-fs-read, --allow-fs-write, once per path).
	FSRead, FSWrite []string
	// AllowChildProcess allows node:child_process (--allow-child-process).
	AllowChildProcess bool
	// AllowWorker allows node:worker_threads (--allow-worker).
	AllowWorker bool
	// AllowAddons allows native addons (--allow-addons).
	AllowAddons bool
	// AllowWASI allows node:wasi (--allow-wasi).
	AllowWASI bool
}

// args returns the node flags for p; none when p is nil.
func (p *Permission) args() []string {
	if p == nil {
		return nil
	}
	args := []string{"--permission"}
	for _, path := range p.FSRead {
		args = append(args, "--allow-fs-read="+path)
	}
	for _, path := range p.FSWrite {
		args = append(args, "--allow-fs-write="+path)
	}
	for _, f := range []struct {
		on   bool
		flag string
	}{
		{p.AllowChildProcess, "--allow-child-process"},
		{p.AllowWorker, "--allow-worker"},
		{p.AllowAddons, "--allow-addons"},
		{p.AllowWASI, "--allow-wasi"},
	} {
		if f.on {
			args = append(args, f.flag)
		}
	}
	return args
}
