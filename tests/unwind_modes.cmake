# unwind_modes_e2e: --unwind kernel against --unwind dwarf on the same programs (root + BTF:
# label bpf): dwarf_e2e's fixtures without frame pointers (tests/dwarf.cmake), and Debian's
# sed, jq and sqlite3 (deps/debian-packages.txt).
# exec_chain, twice (tests/data/unwind_modes/exec_chain.c): no PIE, so both builds put the same
# code at the same addresses; PAD changes one frame's size, so the CFI rows differ there.
set(UNWIND_MODES_SRC ${CMAKE_CURRENT_SOURCE_DIR}/data/unwind_modes)
foreach(pad 256 4096)
	add_executable(exec_chain_${pad} ${UNWIND_MODES_SRC}/exec_chain.c)
	target_compile_options(exec_chain_${pad} PRIVATE -g -O2 -fomit-frame-pointer
		-momit-leaf-frame-pointer -fno-pie -fno-sanitize=all -DPAD=${pad} -Wall -Wextra -Werror)
	target_link_options(exec_chain_${pad} PRIVATE -no-pie -fno-sanitize=all)
	set_target_properties(exec_chain_${pad} PROPERTIES
		RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/e2e-unwind-modes)
endforeach()

# cxx_throw (tests/data/unwind_modes/cxx_throw.cc): C++ allocations around exceptions.
add_executable(unwind_modes_cxx_throw ${UNWIND_MODES_SRC}/cxx_throw.cc)
target_compile_options(unwind_modes_cxx_throw PRIVATE -g -O2 -fomit-frame-pointer
	-momit-leaf-frame-pointer -fno-sanitize=all -Wall -Wextra -Werror)
target_link_options(unwind_modes_cxx_throw PRIVATE -fno-sanitize=all)
set_target_properties(unwind_modes_cxx_throw PROPERTIES OUTPUT_NAME cxx_throw
	RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/e2e-unwind-modes)

add_criterion_test(unwind_modes_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unwind_modes_e2e.c
		${CMAKE_CURRENT_SOURCE_DIR}/unwind_compare.c
		${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(unwind_modes_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	DWARF_LEVELS_BIN="$<TARGET_FILE:dwarf_levels>"
	DWARF_LIBC_PATHS_BIN="$<TARGET_FILE:dwarf_libc_paths>"
	DWARF_THREADS_BIN="$<TARGET_FILE:dwarf_threads>"
	EXEC_CHAIN_A="$<TARGET_FILE:exec_chain_256>"
	EXEC_CHAIN_B="$<TARGET_FILE:exec_chain_4096>"
	CXX_THROW_BIN="$<TARGET_FILE:unwind_modes_cxx_throw>")
add_dependencies(unwind_modes_e2e tracer dwarf_levels dwarf_libc_paths dwarf_threads
	exec_chain_256 exec_chain_4096 unwind_modes_cxx_throw)
# dwarf_e2e's Rust fixture (tests/dwarf.cmake), when rustc was found.
if(RUSTC_EXECUTABLE)
	target_compile_definitions(unwind_modes_e2e PRIVATE
		RS_ALLOCS_BIN="${CMAKE_CURRENT_BINARY_DIR}/e2e-dwarf/rs_allocs")
	add_dependencies(unwind_modes_e2e dwarf_rs_allocs)
endif()
tracer_test_timeout(unwind_modes_e2e 900)

# kunwind (user/trace/kunwind.c): the tables and descriptions the in-kernel unwinder is given,
# on the test process itself, into plain memory (no BPF, no root).
add_criterion_test(kunwind_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kunwind_unit.c
	LIBS tracer_core
	LABELS unit)
