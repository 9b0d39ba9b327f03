# The one byte formatter and size parser (user/util/units.c) and the one monotonic clock
# (user/util/clock.h).
add_criterion_test(units_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/units_unit.c
	LIBS tracer_core
	LABELS unit)
