# Long-running services, end to end (root + BTF: label bpf): --interval tables of the
# outstanding allocations of a --pid target, --min-age, and SIGUSR1 snapshots.
# -fno-sanitize=all: the program is traced, not tested; frame pointers for --unwind auto.
add_executable(leaks_service ${CMAKE_CURRENT_SOURCE_DIR}/data/leaks/service.c)
target_compile_options(leaks_service PRIVATE -O1 -g -fno-omit-frame-pointer -fno-sanitize=all)
target_link_options(leaks_service PRIVATE -fno-sanitize=all)

add_criterion_test(leaks_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/leaks_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(leaks_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	SERVICE_BIN="$<TARGET_FILE:leaks_service>"
	DHVIEW_CHECK="${CMAKE_CURRENT_SOURCE_DIR}/tools/dhview_check.py")
add_dependencies(leaks_e2e tracer leaks_service)
tracer_test_timeout(leaks_e2e 600)
