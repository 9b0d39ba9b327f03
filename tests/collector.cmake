# Collector and DHAT writer: unit tests on synthetic events and files (no root).
add_library(dhat_invariants STATIC ${CMAKE_CURRENT_SOURCE_DIR}/dhat_invariants.c)
target_include_directories(dhat_invariants PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_options(dhat_invariants PRIVATE ${TRACER_WARNINGS})
target_link_libraries(dhat_invariants PUBLIC tracer_core PkgConfig::CJSON PkgConfig::ZLIB m)

add_criterion_test(collector_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/collector_unit.c
	LIBS tracer_core
	LABELS unit)

add_library(dhat_fixture STATIC ${CMAKE_CURRENT_SOURCE_DIR}/dhat_fixture.c)
target_include_directories(dhat_fixture PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_options(dhat_fixture PRIVATE ${TRACER_WARNINGS})
target_link_libraries(dhat_fixture PUBLIC tracer_core)

add_criterion_test(dhat_writer_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/dhat_writer_unit.c
	LIBS tracer_core dhat_fixture dhat_invariants
	LABELS unit)

# report_unit (reads what dhat_writer_unit's fixtures write) is declared in report.cmake.

# Every file dhat_writer_unit writes, plus our golden file, a dhat-rs sample and a real
# Valgrind file, loaded into Valgrind's own dh_view.js under node (dhat-format.md §9.4).
find_program(NODE_EXECUTABLE NAMES node nodejs)
set(DH_VIEW_JS /usr/libexec/valgrind/dh_view.js)
set_tests_properties(dhat_writer_unit PROPERTIES FIXTURES_SETUP dhat_viewer_files)
if(NODE_EXECUTABLE AND EXISTS ${DH_VIEW_JS})
	add_test(NAME dhat_viewer_unit
		COMMAND ${NODE_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/dh_view_check.js
			--viewer ${DH_VIEW_JS}
			${CMAKE_CURRENT_SOURCE_DIR}/data/writer_prog_c.golden.json
			${CMAKE_CURRENT_SOURCE_DIR}/data/dhat_rs_sample.json
			${CMAKE_CURRENT_BINARY_DIR}/viewer-files)
	set_tests_properties(dhat_viewer_unit PROPERTIES LABELS unit
		FIXTURES_REQUIRED dhat_viewer_files)
else()
	message(STATUS "dhat_viewer_unit disabled: node or ${DH_VIEW_JS} not found")
endif()

add_criterion_test(huge_table_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/huge_table_unit.c
	LIBS tracer_core
	LABELS unit)
