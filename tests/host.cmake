# Any host: every attach path with tracefs mounted, unmounted, or unreachable, the kernel
# features refused one by one (TRACER_REFUSE), the host's mounts untouched, SIGKILL leaving
# no uprobe events, and tracer --check. Root + BTF: label bpf.
add_executable(host_go_allocs ${CMAKE_CURRENT_SOURCE_DIR}/data/host/go_allocs.c)
target_compile_options(host_go_allocs PRIVATE -O0 -g -fno-omit-frame-pointer -fno-sanitize=all)
target_link_options(host_go_allocs PRIVATE -fno-sanitize=all)

add_criterion_test(host_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/host_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core PkgConfig::CJSON
	LABELS bpf)
target_compile_definitions(host_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	GO_ALLOCS_BIN="$<TARGET_FILE:host_go_allocs>")
add_dependencies(host_e2e tracer host_go_allocs)
tracer_test_timeout(host_e2e 600)
