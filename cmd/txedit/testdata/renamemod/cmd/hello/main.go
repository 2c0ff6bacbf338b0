package main

import (
	"fmt"

	"example.com/renamemod/greet"
)

func main() {
	g := greet.Greeter{Name: "txedit", Times: 2}
	fmt.Println(g.Hello("world"), greet.Greet("x"), greet.Echo{}.Hello("e"), greet.Twice(), greet.Width)
}
