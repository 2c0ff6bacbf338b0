package par

import (
	"runtime"
	"testing"
)

// TestWiden: Widen raises GOMAXPROCS, never lowers it, and restores it
// when the last Widen in effect is restored (each restore counts once);
// a GOMAXPROCS someone else set meanwhile is left as they set it.
func TestWiden(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	procs := func() int { return runtime.GOMAXPROCS(0) }
	a := Widen(SyscallProcs)
	if procs() != SyscallProcs {
		t.Fatalf("widened: GOMAXPROCS %d, want %d", procs(), SyscallProcs)
	}
	b := Widen(SyscallProcs)
	a()
	a() // once only
	if procs() != SyscallProcs {
		t.Fatalf("one Widen still in effect: GOMAXPROCS %d, want %d", procs(), SyscallProcs)
	}
	b()
	if procs() != 2 {
		t.Fatalf("restored: GOMAXPROCS %d, want 2", procs())
	}

	runtime.GOMAXPROCS(SyscallProcs + 4)
	Widen(SyscallProcs)()
	if procs() != SyscallProcs+4 {
		t.Fatalf("Widen lowered GOMAXPROCS to %d", procs())
	}

	// A value the program chose that is not the default (the restore
	// puts the default back first, for the runtime's own updates) is
	// what it gets back.
	runtime.SetDefaultGOMAXPROCS()
	def := procs()
	mine := def + 1
	if def > 1 {
		mine = def - 1
	}
	runtime.GOMAXPROCS(mine)
	Widen(SyscallProcs)()
	if procs() != mine {
		t.Fatalf("GOMAXPROCS %d (the program's, the default being %d) restored to %d", mine, def, procs())
	}

	runtime.GOMAXPROCS(2)
	c := Widen(SyscallProcs)
	runtime.GOMAXPROCS(3) // the program's own choice, meanwhile
	c()
	if procs() != 3 {
		t.Fatalf("GOMAXPROCS set meanwhile to 3 was restored to %d", procs())
	}
}
