# Process trees against the tracer binary (root + BTF: label bpf): every image of a traced
# tree (sh running two programs, three levels with an exec, --pid workers, a cgroup) gets
# its own profile with the counts the program makes alone; --no-follow traces one process.
add_executable(tree_node ${CMAKE_CURRENT_SOURCE_DIR}/data/tree/tree_node.c)
target_compile_options(tree_node PRIVATE ${TRACER_WARNINGS} -O1 -g -fno-omit-frame-pointer)
set_target_properties(tree_node PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/tree)

add_criterion_test(tree_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tree_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(tree_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	TREE_NODE_BIN="$<TARGET_FILE:tree_node>")
add_dependencies(tree_e2e tracer tree_node)
tracer_test_timeout(tree_e2e 900)

# The same program linked statically: a child whose allocator is its own executable, not
# the parent's libc (probed at its exec hold point).
add_executable(tree_node_static ${CMAKE_CURRENT_SOURCE_DIR}/data/tree/tree_node.c)
target_compile_options(tree_node_static PRIVATE -O1 -g -fno-omit-frame-pointer -fno-sanitize=all)
target_link_options(tree_node_static PRIVATE -static -fno-sanitize=all)
set_target_properties(tree_node_static PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/tree)
add_dependencies(tree_e2e tree_node_static)
target_compile_definitions(tree_e2e PRIVATE
	TREE_NODE_STATIC_BIN="$<TARGET_FILE:tree_node_static>")

# tree_links: the per-process link sets of a tree traced with session links, without BPF.
add_criterion_test(tree_links_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tree_links_unit.c
	LIBS tracer_core
	LABELS unit)

# tracee: which image an exec record opens (a joining process's exec before its exe was
# read is that image), with made-up records and the test's own process.
add_criterion_test(tracee_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tracee_unit.c
	LIBS tracer_core
	LABELS unit)

add_criterion_test(tgid_index_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tgid_index_unit.c
	LIBS tracer_core
	LABELS unit)
