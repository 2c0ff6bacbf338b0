package main

import (
	"fmt"

	"example.com/shop/inventory"
)

func main() {
	items := []inventory.Item{{Name: "apple", Count: 3}, {Name: "pear", Count: 5}}
	fmt.Println("units in stock:", inventory.CountItems(items))
}
