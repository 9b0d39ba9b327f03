# Session uprobes and their fallback give the same profile: the tracer run both ways
# (TRACER_NO_SESSION=1 forces the fallback) on deterministic programs. Root + BTF: label bpf.
add_criterion_test(uprobe_session_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/uprobe_session_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(uprobe_session_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	KNOWN_ALLOCS_BIN="$<TARGET_FILE:known_allocs>"
	WORKLOADS_BIN="$<TARGET_FILE:kaish-workloads>")
add_dependencies(uprobe_session_e2e tracer known_allocs kaish-workloads)
tracer_test_timeout(uprobe_session_e2e 900)
