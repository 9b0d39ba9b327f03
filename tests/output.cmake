# The output module (user/util/output.c): safe create/replace, gzip, -o path checks. Unit; the
# sudo ownership cases are in privilege.cmake.
add_criterion_test(output_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/output_unit.c
	LIBS tracer_core
	LABELS unit)
