# tracer top, end to end (root + BTF: label bpf): the screen in a tmux pane (the site, the
# heap, a sort key, the / filter, q with -o) and --batch -n frames.
# -fno-sanitize=all: the program is traced, not tested; frame pointers for --unwind auto.
add_executable(top_prog ${CMAKE_CURRENT_SOURCE_DIR}/data/top/top_prog.c)
target_compile_options(top_prog PRIVATE -O1 -g -fno-omit-frame-pointer -fno-sanitize=all)
target_link_options(top_prog PRIVATE -fno-sanitize=all -pthread)

add_criterion_test(top_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/top_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(top_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	TOP_PROG_BIN="$<TARGET_FILE:top_prog>")
add_dependencies(top_e2e tracer top_prog)
tracer_test_timeout(top_e2e 300)
