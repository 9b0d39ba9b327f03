# Integer-sequence interning (user/util/seq_intern.c): indices, the tail, taking the pool.
add_criterion_test(seq_intern_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/seq_intern_unit.c
	LIBS tracer_core
	LABELS unit)
