# The heap at the moment of death (issue #19): an OOM kill in a memory cgroup, under -- CMD
# and --pid, and a SIGSEGV, recorded in the profile and leading the summary. Root + BTF + a
# memory cgroup controller (v1 or v2): label bpf. The programs are traced, not tested:
# -fno-sanitize=all, frame pointers for --unwind fp.
foreach(prog oom_leak segv mmap_prog tiny_blocks malloc_grows)
	add_executable(death_${prog} ${CMAKE_CURRENT_SOURCE_DIR}/data/death/${prog}.c)
	target_compile_options(death_${prog} PRIVATE -O1 -g -fno-omit-frame-pointer
		-fno-sanitize=all)
	target_link_options(death_${prog} PRIVATE -fno-sanitize=all)
endforeach()

add_criterion_test(death_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/death_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(death_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	OOM_LEAK_BIN="$<TARGET_FILE:death_oom_leak>"
	SEGV_BIN="$<TARGET_FILE:death_segv>"
	MMAP_PROG_BIN="$<TARGET_FILE:death_mmap_prog>"
	MALLOC_GROWS_BIN="$<TARGET_FILE:death_malloc_grows>"
	DHVIEW_CHECK="${CMAKE_CURRENT_SOURCE_DIR}/tools/dhview_check.py")
add_dependencies(death_e2e tracer death_oom_leak death_segv death_mmap_prog
	death_malloc_grows)
tracer_test_timeout(death_e2e 600)

# Heap against RSS per process image: the heap in malloc chunks on the timeline, and a
# followed child's own mappings and RSS series. Root + BTF: label bpf.
add_criterion_test(rss_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/rss_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(rss_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	TINY_BLOCKS_BIN="$<TARGET_FILE:death_tiny_blocks>"
	MMAP_PROG_BIN="$<TARGET_FILE:death_mmap_prog>")
add_dependencies(rss_e2e tracer death_tiny_blocks death_mmap_prog)
tracer_test_timeout(rss_e2e 300)

# The "death" object without root: record -> file -> reader -> the report's lead line.
add_criterion_test(death_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/death_unit.c
	LIBS tracer_core
	LABELS unit)
