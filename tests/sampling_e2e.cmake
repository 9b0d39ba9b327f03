# --sample-bytes end to end: a program whose heap figures are known exactly, traced exact
# and sampled; the estimates must land within 6 sigma. Root + BTF: label bpf.
add_executable(sample_mix ${CMAKE_CURRENT_SOURCE_DIR}/data/sampling/sample_mix.c)
target_compile_options(sample_mix PRIVATE -O0 -g -fno-omit-frame-pointer -fno-sanitize=all)
target_link_options(sample_mix PRIVATE -fno-sanitize=all)

add_criterion_test(sampling_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/sampling_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core m
	LABELS bpf)
target_compile_definitions(sampling_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	SAMPLE_MIX_BIN="$<TARGET_FILE:sample_mix>")
add_dependencies(sampling_e2e tracer sample_mix)
# Realloc chains through getline (a libc helper: its net effect is sampled at its return).
add_executable(getline_chain ${CMAKE_CURRENT_SOURCE_DIR}/data/sampling/getline_chain.c)
target_compile_options(getline_chain PRIVATE -O0 -g -fno-omit-frame-pointer -fno-sanitize=all)
target_link_options(getline_chain PRIVATE -fno-sanitize=all)
add_dependencies(sampling_e2e getline_chain)
target_compile_definitions(sampling_e2e PRIVATE
	GETLINE_CHAIN_BIN="$<TARGET_FILE:getline_chain>")
tracer_test_timeout(sampling_e2e 600)

# A preloaded allocator of our own whose realloc calls neither its malloc nor its free (a
# tcmalloc-like realloc(NULL, n)), reached through an exec from a traced shell: its unsampled
# reallocs must keep their return trap (the glibc skip is per object; a global one would
# lose every realloc(NULL, n) of it).
add_library(own_alloc SHARED ${CMAKE_CURRENT_SOURCE_DIR}/data/sampling/own_alloc.c)
target_compile_options(own_alloc PRIVATE -O1 -g -fno-sanitize=all)
target_link_options(own_alloc PRIVATE -fno-sanitize=all)
add_dependencies(sampling_e2e own_alloc)
target_compile_definitions(sampling_e2e PRIVATE OWN_ALLOC_SO="$<TARGET_FILE:own_alloc>")
