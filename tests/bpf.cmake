# BPF end-to-end tests (label "bpf": root + BTF; under CI=true they fail instead of skipping).
#
#   e2e/allocs          tests/data/e2e/allocs.c, -O0 -g with frame pointers and -z now (no
#                       lazy binding inside the measured window): known allocations through
#                       every probed allocator entry point, between USDT window marks
#   e2e/static_target   a statically linked process (no libc mapping) for the error test
#   bpf_probe_e2e      forks e2e/allocs, attaches the loader, checks the record stream
#                       (frame-pointer stacks, and once with --unwind dwarf snapshots);
#                       loader__stop on alloc_bench (workloads/bench) while it allocates
add_executable(bpf_e2e_allocs ${CMAKE_CURRENT_SOURCE_DIR}/data/e2e/allocs.c)
target_compile_options(bpf_e2e_allocs PRIVATE ${TRACER_WARNINGS} -O0 -g -fno-omit-frame-pointer
	-fno-builtin) # -fno-builtin: gcc folds realloc(NULL, n) into malloc(n) even at -O0
target_link_options(bpf_e2e_allocs PRIVATE -Wl,-z,now)
target_link_libraries(bpf_e2e_allocs PRIVATE bpf_abi Threads::Threads)
set_target_properties(bpf_e2e_allocs PROPERTIES OUTPUT_NAME allocs
	RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/e2e)

# A statically linked target: no libc in its maps (loader__new must fail with ENOENT).
add_executable(bpf_e2e_static ${CMAKE_CURRENT_SOURCE_DIR}/data/e2e/static_target.c)
# -fno-sanitize=all: with TRACER_SANITIZE the sanitizer runtimes cannot be linked statically.
target_compile_options(bpf_e2e_static PRIVATE ${TRACER_WARNINGS} -fno-sanitize=all)
target_link_options(bpf_e2e_static PRIVATE -static -fno-sanitize=all)
set_target_properties(bpf_e2e_static PROPERTIES OUTPUT_NAME static_target
	RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/e2e)

add_criterion_test(bpf_probe_e2e SOURCES bpf_probe_e2e.c LIBS tracer_loader tracer_core
	LABELS bpf)
target_compile_definitions(bpf_probe_e2e PRIVATE ALLOCS_BIN="$<TARGET_FILE:bpf_e2e_allocs>"
	STATIC_BIN="$<TARGET_FILE:bpf_e2e_static>" ALLOC_BENCH_BIN="$<TARGET_FILE:alloc_bench>")
add_dependencies(bpf_probe_e2e bpf_e2e_allocs bpf_e2e_static alloc_bench)
