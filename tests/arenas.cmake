# glibc arena forensics (issue #34): the profile's "arenas" against glibc's own figures
# (mallinfo2, malloc_info) and the RSS malloc_trim(0) gives back, under -- CMD and --pid.
# Root + BTF: label bpf. The program is traced, not tested: -fno-sanitize=all.
add_executable(arenas_prog ${CMAKE_CURRENT_SOURCE_DIR}/data/arenas/arenas_prog.c)
target_compile_options(arenas_prog PRIVATE -O1 -g -fno-omit-frame-pointer -fno-sanitize=all)
target_link_options(arenas_prog PRIVATE -fno-sanitize=all)
target_link_libraries(arenas_prog PRIVATE Threads::Threads)

add_criterion_test(arenas_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/arenas_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(arenas_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	ARENAS_PROG_BIN="$<TARGET_FILE:arenas_prog>"
	DH_VIEW_CHECK="${CMAKE_CURRENT_SOURCE_DIR}/dh_view_check.js")
add_dependencies(arenas_e2e tracer arenas_prog)
tracer_test_timeout(arenas_e2e 300)
