# End-to-end tests of `tracer --unwind dwarf` (root + BTF: label bpf). Fixtures without
# frame pointers in e2e-dwarf/ of the build dir:
#   levels      C, three noinline levels, -O2 -fomit-frame-pointer
#   libc_paths  C, strdup / allocating qsort comparator / getline, same flags
#   two_paths   C, one allocation site reached at one depth by two chains, same flags
#   threads     C, three threads allocating under recursion, same flags
#   rs_allocs   Rust, plain `rustc -O` (only if rustc is found; under CI=true its test fails
#               without it)
# The top-level -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer come first on the
# command line; the options below come later and win (the test checks with objdump).
# -fno-sanitize=all: under TRACER_SANITIZE, ASan would put frame pointers back.
set(DWARF_E2E_SRC ${CMAKE_CURRENT_SOURCE_DIR}/data/dwarf)
set(DWARF_E2E_DIR ${CMAKE_CURRENT_BINARY_DIR}/e2e-dwarf)
set(DWARF_E2E_CFLAGS -g -O2 -fomit-frame-pointer -momit-leaf-frame-pointer -fno-sanitize=all
	-Wall -Wextra -Werror)

foreach(fix levels libc_paths two_paths threads)
	add_executable(dwarf_${fix} ${DWARF_E2E_SRC}/${fix}.c)
	target_compile_options(dwarf_${fix} PRIVATE ${DWARF_E2E_CFLAGS})
	target_link_options(dwarf_${fix} PRIVATE -fno-sanitize=all)
	set_target_properties(dwarf_${fix} PROPERTIES OUTPUT_NAME ${fix}
		RUNTIME_OUTPUT_DIRECTORY ${DWARF_E2E_DIR})
endforeach()
find_package(Threads REQUIRED)
target_link_libraries(dwarf_threads PRIVATE Threads::Threads)

add_criterion_test(dwarf_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/dwarf_e2e.c
		${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(dwarf_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	DWARF_LEVELS_BIN="$<TARGET_FILE:dwarf_levels>"
	DWARF_LIBC_PATHS_BIN="$<TARGET_FILE:dwarf_libc_paths>"
	DWARF_TWO_PATHS_BIN="$<TARGET_FILE:dwarf_two_paths>"
	DWARF_THREADS_BIN="$<TARGET_FILE:dwarf_threads>")
add_dependencies(dwarf_e2e tracer dwarf_levels dwarf_libc_paths dwarf_two_paths
	dwarf_threads)
tracer_test_timeout(dwarf_e2e 900)

# rustup installs into ~/.cargo/bin, which is not always on PATH (same lookup as
# tests/unwind.cmake; Debian's `rustc` package works too).
find_program(RUSTC_EXECUTABLE rustc HINTS $ENV{HOME}/.cargo/bin /root/.cargo/bin)
if(RUSTC_EXECUTABLE)
	add_custom_command(
		OUTPUT ${DWARF_E2E_DIR}/rs_allocs
		COMMAND ${CMAKE_COMMAND} -E make_directory ${DWARF_E2E_DIR}
		# MAKEFLAGS: rustc would warn that it cannot join make's jobserver.
		COMMAND ${CMAKE_COMMAND} -E env --unset=MAKEFLAGS --unset=MFLAGS
			${RUSTC_EXECUTABLE} -O --crate-name rs_allocs -o ${DWARF_E2E_DIR}/rs_allocs
			${DWARF_E2E_SRC}/rs_allocs.rs
		DEPENDS ${DWARF_E2E_SRC}/rs_allocs.rs
		COMMENT "DWARF e2e fixture: rustc -O rs_allocs"
		VERBATIM)
	add_custom_target(dwarf_rs_allocs DEPENDS ${DWARF_E2E_DIR}/rs_allocs)
	add_dependencies(dwarf_e2e dwarf_rs_allocs)
	target_compile_definitions(dwarf_e2e PRIVATE
		DWARF_RS_ALLOCS_BIN="${DWARF_E2E_DIR}/rs_allocs")
else()
	message(STATUS "rustc not found: the Rust DWARF end-to-end test will fail under CI")
endif()
