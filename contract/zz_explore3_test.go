package contract

import (
	"fmt"
	"testing"
)

type Node struct {
	Name     string `json:"name"`
	Children []Node `json:"children,omitempty"`
}

func TestExplore3(t *testing.T) {
	s, err := SchemaFor[Node]()
	if err == nil {
		fmt.Println(string(s.JSON()))
	}
	fmt.Println(err)
}
