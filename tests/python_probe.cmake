# Python-level heap profiles end to end (root + BTF: label bpf, issue #32): python_e2e runs
# tests/data/python/alloc_lines.py under tracemalloc and under `tracer --pid`, and compares
# live bytes and blocks per Python line (Debian's python3.11; pyenv's 3.8-3.13 when present).
add_criterion_test(python_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/python_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(python_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	SCRIPT="${CMAKE_CURRENT_SOURCE_DIR}/data/python/alloc_lines.py"
	BUSY="${CMAKE_CURRENT_SOURCE_DIR}/data/python/busy.py")
add_dependencies(python_e2e tracer)
tracer_test_timeout(python_e2e 1800)
