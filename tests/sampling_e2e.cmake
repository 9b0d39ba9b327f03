# --sample-bytes end to end: a program whose heap figures are known exactly, traced exact
# and sampled; the estimates must land within 6 sigma. Root + BTF: label bpf.
add_executable(sample_mix ${CMAKE_CURRENT_SOURCE_DIR}/data/sampling/sample_mix.c)
target_compile_options(sample_mix PRIVATE -O0 -g -fno-omit-frame-pointer -fno-sanitize=all)
target_link_options(sample_mix PRIVATE -fno-sanitize=all)

add_criterion_test(sampling_e2e_test
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/sampling_e2e_test.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core m
	LABELS bpf)
target_compile_definitions(sampling_e2e_test PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	SAMPLE_MIX_BIN="$<TARGET_FILE:sample_mix>")
add_dependencies(sampling_e2e_test tracer sample_mix)
tracer_test_timeout(sampling_e2e_test 600)

# mimalloc preloaded after an exec: a second allocator in the same run (its realloc is not
# glibc's, so its unsampled reallocs keep their return trap).
find_library(SAMPLE_MIMALLOC_SO mimalloc REQUIRED)
target_compile_definitions(sampling_e2e_test PRIVATE MIMALLOC_SO="${SAMPLE_MIMALLOC_SO}")
