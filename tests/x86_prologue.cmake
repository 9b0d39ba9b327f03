# x86_prologue: the prologue decoder behind the loader's probe sites and fp_detect's census.
add_criterion_test(x86_prologue_unit SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/x86_prologue_unit.c
	LIBS tracer_core LABELS unit)
