# The streaming JSON writer (user/util/json_writer.c): escaping, nesting, and the cJSON_Print
# layout that report/diff --json keep byte for byte.
add_criterion_test(json_writer_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/json_writer_unit.c
	LIBS tracer_core PkgConfig::CJSON
	LABELS unit)
