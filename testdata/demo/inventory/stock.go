package inventory

// Item is one line of the stock list.
type Item struct {
	Name  string
	Count int
}

// CountItems returns the number of units in stock.
func CountItems(items []Item) int {
	total := 0
	for _, it := range items {
		total += it.Count
	}
	return total
}
