# Unwinder tests: fixtures built without frame pointers, then one Criterion binary.
#
# unwfix/ in the build dir:
#   unwfix    C fixture, -g -O2 -fomit-frame-pointer (main -> fix_a -> fix_b -> fix_c, a
#             qsort comparator called from libc, a signal handler, a dlopen()ed library)
#   libunwfix.so  the library it dlopen()s, same flags
#   fpfix     the same C fixture, -g -O2 with frame pointers (fp_detect's census)
#   rsfix     Rust fixture, rustc -O without frame pointers (only if rustc is found; the
#             Rust test skips with the reason otherwise)
#   rsfix_v0  the same with -C symbol-mangling-version=v0
set(UNWFIX_SRC ${CMAKE_CURRENT_SOURCE_DIR}/data/unwind)
set(UNWFIX_DIR ${CMAKE_CURRENT_BINARY_DIR}/unwfix)

# The top-level -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer come first on the
# command line; these later options win. -fno-optimize-sibling-calls keeps every call the
# test expects to see as a frame; -fasynchronous-unwind-tables is x86_64's default, stated
# because the fixture is useless without .eh_frame.
# -fno-sanitize=all: under TRACER_SANITIZE, ASan would put frame pointers back (and
# intercept qsort), and the fixture must look like ordinary release code.
set(UNWFIX_CFLAGS -g -O2 -fomit-frame-pointer -momit-leaf-frame-pointer
	-fno-optimize-sibling-calls -fasynchronous-unwind-tables -fno-sanitize=all
	-Wall -Wextra -Werror)
add_executable(unwfix ${UNWFIX_SRC}/fixture.c)
target_compile_options(unwfix PRIVATE ${UNWFIX_CFLAGS})
target_link_options(unwfix PRIVATE -fno-sanitize=all)
target_link_libraries(unwfix PRIVATE ${CMAKE_DL_LIBS})
set_target_properties(unwfix PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${UNWFIX_DIR})

# fpfix: the same fixture built with frame pointers kept (the tree's own flags may change,
# and what a test binary links -- libstdc++'s demangler, for one -- is not ours to choose):
# fp_detect's census must tell it from unwfix.
add_executable(fpfix ${UNWFIX_SRC}/fixture.c)
target_compile_options(fpfix PRIVATE -g -O2 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
	-fno-optimize-sibling-calls -fno-sanitize=all -Wall -Wextra -Werror)
target_link_options(fpfix PRIVATE -fno-sanitize=all)
target_link_libraries(fpfix PRIVATE ${CMAKE_DL_LIBS})
set_target_properties(fpfix PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${UNWFIX_DIR})

add_library(unwfix_lib MODULE ${UNWFIX_SRC}/fixture_lib.c)
target_compile_options(unwfix_lib PRIVATE ${UNWFIX_CFLAGS} -fPIC)
target_link_options(unwfix_lib PRIVATE -fno-sanitize=all)
set_target_properties(unwfix_lib PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${UNWFIX_DIR}
	OUTPUT_NAME unwfix PREFIX "lib")

# rustup installs into ~/.cargo/bin, which is not always on PATH.
find_program(RUSTC_EXECUTABLE rustc HINTS $ENV{HOME}/.cargo/bin /root/.cargo/bin)
set(UNWFIX_RUST_DEPS)
if(RUSTC_EXECUTABLE)
	add_custom_command(
		OUTPUT ${UNWFIX_DIR}/rsfix
		COMMAND ${CMAKE_COMMAND} -E make_directory ${UNWFIX_DIR}
		# MAKEFLAGS: rustc would warn that it cannot join make's jobserver.
		COMMAND ${CMAKE_COMMAND} -E env --unset=MAKEFLAGS --unset=MFLAGS
			${RUSTC_EXECUTABLE} -O -C force-frame-pointers=no -C debuginfo=1
			--crate-name rsfix -o ${UNWFIX_DIR}/rsfix ${UNWFIX_SRC}/rsfix.rs
		DEPENDS ${UNWFIX_SRC}/rsfix.rs
		COMMENT "Unwinder fixture: rustc -O rsfix"
		VERBATIM)
	# The same crate with v0 symbol mangling (stable since rustc 1.59), for the demangler.
	add_custom_command(
		OUTPUT ${UNWFIX_DIR}/rsfix_v0
		COMMAND ${CMAKE_COMMAND} -E make_directory ${UNWFIX_DIR}
		COMMAND ${CMAKE_COMMAND} -E env --unset=MAKEFLAGS --unset=MFLAGS
			${RUSTC_EXECUTABLE} -O -C force-frame-pointers=no -C debuginfo=1
			-C symbol-mangling-version=v0
			--crate-name rsfix -o ${UNWFIX_DIR}/rsfix_v0 ${UNWFIX_SRC}/rsfix.rs
		DEPENDS ${UNWFIX_SRC}/rsfix.rs
		COMMENT "Unwinder fixture: rustc -O rsfix, v0 mangling"
		VERBATIM)
	add_custom_target(unwfix_rust DEPENDS ${UNWFIX_DIR}/rsfix ${UNWFIX_DIR}/rsfix_v0)
	set(UNWFIX_RUST_DEPS unwfix_rust)
else()
	message(STATUS "rustc not found: the Rust unwinder test will skip")
endif()

# The symbolizer's benchmark (tests/symbolizer.cmake) also times Rust code, on rsfix.
if(RUSTC_EXECUTABLE)
	add_dependencies(symbolizer_unit unwfix_rust)
	target_compile_definitions(symbolizer_unit PRIVATE
		SYMBENCH_RUST_BIN="${UNWFIX_DIR}/rsfix")
endif()

add_criterion_test(unwind_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unwind_unit.c
	LIBS tracer_core
	LABELS unit)
target_compile_definitions(unwind_unit PRIVATE UNWFIX_DIR="${UNWFIX_DIR}")
add_dependencies(unwind_unit unwfix unwfix_lib ${UNWFIX_RUST_DEPS})

# dwarf_stacks (snapshot records -> stack ids) and fp_detect (--unwind auto's census): the
# census reads the fixtures above.
add_criterion_test(dwarf_stacks_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/dwarf_stacks_unit.c
	LIBS tracer_core
	LABELS unit)
target_compile_definitions(dwarf_stacks_unit PRIVATE UNWFIX_DIR="${UNWFIX_DIR}")
add_dependencies(dwarf_stacks_unit unwfix fpfix ${UNWFIX_RUST_DEPS})

# stack_hints: the per-site hint table and what it tells its sink (no process needed).
add_criterion_test(stack_hints_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/stack_hints_unit.c
	LIBS tracer_core
	LABELS unit)
