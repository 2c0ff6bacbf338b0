package main

import (
	"testing"
	"time"
)

// keptFromMoment tells a refused edit that an outside writer kept (it
// read the edit's version in the moment the commit had it in place,
// before the rollback, as the soak saw: docs/journal.md, "Writers outside
// txedit") from one txedit left in effect: only the journal's proof
// counts.
func TestKeptFromMoment(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 2, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	e := &edit{id: 15, agent: "soak-mcp0", files: []string{"f00.txt", "f18.txt"}, ts: at(0), tr: at(50), outcome: "refused"}
	tx := func(id string, ms int, state, agent, newF00 string) txn {
		t := txn{ID: id, Time: at(ms), State: state, Agent: agent}
		t.Files = append(t.Files, struct {
			Path    string `json:"path"`
			NewHash string `json:"new_hash"`
		}{"f00.txt", newF00})
		return t
	}
	carrying := func(readMs int, readHash string) map[string][]*save {
		return map[string][]*save{"f00.txt": {
			{id: 1, file: "f00.txt", r: at(-20), readHash: "before", tmarks: map[int]bool{}},
			{id: 2, file: "f00.txt", r: at(readMs), readHash: readHash, tmarks: map[int]bool{15: true}},
			{id: 3, file: "f00.txt", r: at(readMs + 30), readHash: "later", tmarks: map[int]bool{15: true}},
		}}
	}
	for _, c := range []struct {
		name    string
		savesOf map[string][]*save
		log     []txn
		want    bool
	}{
		{"read the rolled-back commit's version during the request", carrying(20, "N"),
			[]txn{tx("T1", 5, "rolled_back", "soak-mcp0", "N")}, true},
		{"a retry of it committed", carrying(20, "N"),
			[]txn{tx("T2", 30, "committed", "soak-mcp0", "M"), tx("T1", 5, "rolled_back", "soak-mcp0", "N")}, false},
		{"the state read was committed", carrying(20, "N"),
			[]txn{tx("T1", 5, "committed", "soak-mcp0", "N")}, false},
		{"read after the refusal was answered", carrying(60, "N"),
			[]txn{tx("T1", 5, "rolled_back", "soak-mcp0", "N")}, false},
		{"another agent's rolled-back version", carrying(20, "N"),
			[]txn{tx("T1", 5, "rolled_back", "soak-mcp1", "N")}, false},
		{"a rolled-back transaction begun before the request", carrying(20, "N"),
			[]txn{tx("T1", -5, "rolled_back", "soak-mcp0", "N")}, false},
		{"not in the journal (retention)", carrying(20, "N"), nil, false},
		{"no outside save carried it (txedit wrote it)", map[string][]*save{},
			[]txn{tx("T1", 5, "rolled_back", "soak-mcp0", "N")}, false},
	} {
		if got := keptFromMoment(e, []string{"f00.txt"}, c.savesOf, c.log); got != c.want {
			t.Errorf("%s: keptFromMoment = %v, want %v", c.name, got, c.want)
		}
	}
}
