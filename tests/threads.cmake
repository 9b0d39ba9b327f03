# Per-thread and per-size views, end to end (root + BTF: label bpf): a program with four
# named worker threads, each allocating blocks of one known size; `report --by-thread` names
# the four, `report --sizes` puts each worker's allocations in its power-of-two bucket, and
# the file with its "threads" and "sizes" still loads in dh_view.
# -fno-sanitize=all: the program is traced, not tested.
add_executable(threads_workers ${CMAKE_CURRENT_SOURCE_DIR}/data/threads/workers.c)
target_compile_options(threads_workers PRIVATE -O0 -g -fno-omit-frame-pointer -fno-sanitize=all)
target_link_options(threads_workers PRIVATE -fno-sanitize=all)
target_link_libraries(threads_workers PRIVATE pthread)

add_criterion_test(threads_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/threads_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(threads_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	WORKERS_BIN="$<TARGET_FILE:threads_workers>")
add_dependencies(threads_e2e tracer threads_workers)
tracer_test_timeout(threads_e2e 300)
