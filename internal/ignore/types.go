package ignore

import (
	"sort"
	"sync"
)

// fileTypes are ripgrep's definitions for its common type names, built
// on first use: a map literal at package level is built at every process
// start (docs/design.md, "Process start").
var fileTypes = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"c":        {"*.[chH]", "*.[chH].in", "*.cats"},
		"cpp":      {"*.[ChH]", "*.[ChH].in", "*.[ch]pp", "*.[ch]pp.in", "*.[ch]xx", "*.[ch]xx.in", "*.cc", "*.cc.in", "*.hh", "*.hh.in", "*.inl"},
		"cs":       {"*.cs"},
		"css":      {"*.css", "*.scss"},
		"csv":      {"*.csv"},
		"docker":   {"*Dockerfile*"},
		"go":       {"*.go"},
		"h":        {"*.h", "*.hh", "*.hpp"},
		"html":     {"*.ejs", "*.htm", "*.html"},
		"java":     {"*.java", "*.jsp", "*.jspx", "*.properties"},
		"js":       {"*.js", "*.jsx", "*.vue"},
		"json":     {"*.json", "composer.lock"},
		"kotlin":   {"*.kt", "*.kts"},
		"lua":      {"*.lua"},
		"make":     {"[Gg][Nn][Uu]makefile", "[Mm]akefile", "[Gg][Nn][Uu]makefile.am", "[Gg][Nn][Uu]makefile.in", "[Mm]akefile.am", "[Mm]akefile.in", "*.mk", "*.mak"},
		"markdown": {"*.markdown", "*.md", "*.mdown", "*.mkdn"},
		"md":       {"*.markdown", "*.md", "*.mdown", "*.mkdn"},
		"php":      {"*.php", "*.php3", "*.php4", "*.php5", "*.phtml"},
		"proto":    {"*.proto"},
		"py":       {"*.py", "*.pyi"},
		"ruby":     {"Gemfile", "*.gemspec", ".irbrc", "Rakefile", "*.rb"},
		"rust":     {"*.rs"},
		"sh":       {"*.bash", "*.bashrc", "*.csh", "*.cshrc", "*.ksh", "*.kshrc", "*.sh", "*.tcsh", "*.zsh", ".bash_login", ".bash_logout", ".bash_profile", ".bashrc", ".cshrc", ".kshrc", ".login", ".logout", ".profile", ".tcshrc", ".zlogin", ".zlogout", ".zprofile", ".zshenv", ".zshrc", "bash_login", "bash_logout", "bash_profile", "bashrc", "profile", "zlogin", "zlogout", "zprofile", "zshenv", "zshrc"},
		"sql":      {"*.sql", "*.psql"},
		"swift":    {"*.swift"},
		"toml":     {"*.toml", "Cargo.lock"},
		"ts":       {"*.ts", "*.tsx"},
		"txt":      {"*.txt"},
		"xml":      {"*.xml", "*.xml.dist"},
		"yaml":     {"*.yaml", "*.yml"},
	}
})

// TypeNames lists the file type names, sorted.
func TypeNames() []string {
	names := make([]string, 0, len(fileTypes()))
	for n := range fileTypes() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
