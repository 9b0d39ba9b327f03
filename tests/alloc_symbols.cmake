# alloc_symbols: the allocator's object and entry-point offsets, read from ELF files.
add_criterion_test(alloc_symbols_test SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/alloc_symbols_test.c
	LIBS tracer_core LABELS unit)
