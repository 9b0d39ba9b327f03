# alloc_symbols: the allocator's object and entry-point offsets, read from ELF files.
add_criterion_test(alloc_symbols_unit SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/alloc_symbols_unit.c
	LIBS tracer_core LABELS unit)
# The fixtures of tests/alloc_resolve.cmake, read as files (never run here).
target_compile_definitions(alloc_symbols_unit PRIVATE
	JEMALLOC_STATIC_BIN="$<TARGET_FILE:alloc_jemalloc_static>"
	MIMALLOC_PROG_BIN="$<TARGET_FILE:alloc_mimalloc_prog>")
add_dependencies(alloc_symbols_unit alloc_jemalloc_static alloc_mimalloc_prog)
