package durable

// Revertible reports whether connector.method is configured on this handle
// with a Revert, so that an applied call of it can be rolled back here.
func (h *Handle) Revertible(connector, method string) bool {
	t := h.tools[connector][method]
	return t != nil && t.Revert != nil
}

// Configured reports whether a connector of that name is configured on
// this handle (approving or rolling back a run needs every connector it
// started with).
func (h *Handle) Configured(connector string) bool { return h.byName[connector] != nil }
