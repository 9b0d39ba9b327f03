# The streaming JSON tokenizer (user/util/json_reader.c): values, positions, the syntax
# errors' wording, the bounds, and files (plain, gzip, refused).
add_criterion_test(json_reader_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/json_reader_unit.c
	LIBS tracer_core
	LABELS unit)
