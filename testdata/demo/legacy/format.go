package legacy

import "fmt"

// FormatCount renders a count for the report.
func FormatCount(n int) string { return fmt.Sprintf("%d units", n) }
