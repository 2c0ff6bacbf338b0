// Package greet is the fixture of txedit's rename tests (a rename by
// gopls compared with gopls rename -w).
package greet

import "strings"

// Greeter greets people by name.
type Greeter struct {
	Name  string
	Times int
}

// Hello is the method the tests rename; Echo.Hello has the same name.
func (g Greeter) Hello(who string) string {
	parts := []string{}
	for i := 0; i < g.Times; i++ {
		parts = append(parts, "hello "+who+" from "+g.Name)
	}
	return strings.Join(parts, "\n")
}

// Echo is another type with a Hello method: a text search for Hello
// cannot tell them apart.
type Echo struct{}

// Hello echoes.
func (Echo) Hello(who string) string { return who }

// Greet greets once.
func Greet(name string) string {
	count := 1
	g := Greeter{Name: name, Times: count}
	return g.Hello("you")
}

// Other is in the way of a rename of Greet to Other.
func Other() {}
