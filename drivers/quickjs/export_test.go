package quickjs

// PrebuildsSettled reports whether no scope is being built on d's
// templates: those of its in-process runtimes (a sandboxed runtime's are in
// its process).
func PrebuildsSettled(d *Driver) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, t := range d.templates {
		t.prebuilt.mu.Lock()
		building := t.prebuilt.building
		t.prebuilt.mu.Unlock()
		if building {
			return false
		}
	}
	return true
}
