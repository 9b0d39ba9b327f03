# unwind_modes_e2e: --unwind kernel against --unwind dwarf on the same programs (root + BTF:
# label bpf): dwarf_e2e's fixtures without frame pointers (tests/dwarf.cmake), and Debian's
# sed, jq and sqlite3 (deps/debian-packages.txt).
add_criterion_test(unwind_modes_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unwind_modes_e2e.c
		${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(unwind_modes_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	DWARF_LEVELS_BIN="$<TARGET_FILE:dwarf_levels>"
	DWARF_LIBC_PATHS_BIN="$<TARGET_FILE:dwarf_libc_paths>"
	DWARF_THREADS_BIN="$<TARGET_FILE:dwarf_threads>")
add_dependencies(unwind_modes_e2e tracer dwarf_levels dwarf_libc_paths dwarf_threads)
tracer_test_timeout(unwind_modes_e2e 900)

# kunwind (user/trace/kunwind.c): the tables and descriptions the in-kernel unwinder is given,
# on the test process itself, into plain memory (no BPF, no root).
add_criterion_test(kunwind_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kunwind_unit.c
	LIBS tracer_core
	LABELS unit)
