package openapi

import (
	"context"
	"encoding/json"
)

// RequestOptions and Request give the external tests the request method's
// sending without a program around it.
type RequestOptions = requestOptions

// Request is (*Connector).request.
func (c *Connector) Request(ctx context.Context, o RequestOptions) (json.RawMessage, error) {
	return c.request(ctx, o)
}
