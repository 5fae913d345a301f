package postgres

// CreateAndPrune exposes create with keep to the tests until the store
// contract's CreateExecution takes keep.
var CreateAndPrune = (*Store).create
