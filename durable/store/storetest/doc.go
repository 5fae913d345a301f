// Package storetest is the contract test suite of store.Store: every store
// (durable/store/sqlite, durable/store/postgres) runs Run against a fresh, empty
// store.
//
//	func TestStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store { return openFresh(t) })
//	}
package storetest
