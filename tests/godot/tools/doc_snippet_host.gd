## The node a docs fragment runs in (see rust/xtask/src/doc_snippets.rs): a generated script
## extends it and puts the fragment in `run_snippet`, so the fragment may use `world` (a
## `StrataChunkWorld` child whose area is ready) and `preset` (its preset) as the docs say.
extends Node3D

## The page's world: a child `StrataChunkWorld`, area ready before the fragment runs.
var world: StrataChunkWorld
## `world.preset`.
var preset: StrataWorldPreset
## True once `run_snippet` returned (the runner waits for it with a time limit).
var finished := false
## The `<!-- check: -->` expressions that were false.
var check_failures: PackedStringArray = []


## The fragment; the generated script overrides it.
func run_snippet() -> void:
	await get_tree().process_frame


## Runs the fragment to its end (awaits included), then sets `finished`.
func start() -> void:
	await run_snippet()
	finished = true


## Records `what` when `ok` is false.
func snippet_check(ok: bool, what: String) -> void:
	if not ok:
		check_failures.append(what)
