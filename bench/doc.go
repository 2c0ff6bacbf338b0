// Package bench holds txedit's macro benchmarks as Go benchmarks (the
// per-phase breakdown of a commit); the side-by-side comparisons with the
// peers are the commands in its subdirectories. See bench/README.md.
package bench
