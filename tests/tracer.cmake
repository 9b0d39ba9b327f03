# End-to-end tests of the tracer binary: trace real programs, compare with Valgrind DHAT,
# check every written file in the real dh_view (headless Chromium). Root + BTF: label bpf.
add_executable(known_allocs ${CMAKE_CURRENT_SOURCE_DIR}/data/e2e/known_allocs.c)
target_compile_options(known_allocs PRIVATE -O0 -g)
target_link_libraries(known_allocs PRIVATE Threads::Threads)

add_criterion_test(tracer_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tracer_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(tracer_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	KNOWN_ALLOCS_BIN="$<TARGET_FILE:known_allocs>"
	WORKLOADS_BIN="$<TARGET_FILE:kaish-workloads>"
	KERNEL_SRC_DIR="${PROJECT_SOURCE_DIR}/kernel-under-test/src"
	WORKLOADS_SRC_DIR="${PROJECT_SOURCE_DIR}/workloads"
	DHVIEW_CHECK="${CMAKE_CURRENT_SOURCE_DIR}/tools/dhview_check.py")
add_dependencies(tracer_e2e tracer known_allocs kaish-workloads)
tracer_test_timeout(tracer_e2e 1200)

add_criterion_test(attach_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/attach_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(attach_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	EMBEDDER_BIN="$<TARGET_FILE:kaish-embedder>"
	SPIN_BIN="$<TARGET_FILE:fault_alloc_spin>"
	DHVIEW_CHECK="${CMAKE_CURRENT_SOURCE_DIR}/tools/dhview_check.py")
add_dependencies(attach_e2e tracer kaish-embedder fault_alloc_spin)
tracer_test_timeout(attach_e2e 1200)

# The same program linked statically: malloc lives in the executable (allocator detection).
add_executable(known_allocs_static ${CMAKE_CURRENT_SOURCE_DIR}/data/e2e/known_allocs.c)
# -fno-sanitize=all: with TRACER_SANITIZE the sanitizer runtimes cannot be linked statically.
target_compile_options(known_allocs_static PRIVATE -O0 -g -fno-sanitize=all)
target_link_options(known_allocs_static PRIVATE -static -fno-sanitize=all)
target_link_libraries(known_allocs_static PRIVATE Threads::Threads)
add_dependencies(tracer_e2e known_allocs_static)
target_compile_definitions(tracer_e2e PRIVATE
	KNOWN_ALLOCS_STATIC_BIN="$<TARGET_FILE:known_allocs_static>")
