# The string-interning table (user/util/strtab.c) shared by the DHAT writer, the exports and diff.
add_criterion_test(strtab_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/strtab_unit.c
	LIBS tracer_core
	LABELS unit)
