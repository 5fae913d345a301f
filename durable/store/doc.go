// Package store is the durable journal's persistence, as
// database/sql/driver is to database/sql: the [Store] interface a journal
// store implements, and the records it keeps ([Execution], its [Entry]
// log, [Snippet]s). Package durable uses a Store; its users read these
// records (durable.Handle.Execution). Stores: durable/store/sqlite (the
// embedded default) and durable/store/postgres (shared by replicas);
// durable/store/storetest is the contract suite every Store passes.
package store
