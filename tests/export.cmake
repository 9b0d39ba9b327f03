# Exporter tests (user/export/export*.c): pprof, folded stacks, SVG flame graph, heap timeline
# (also drawn from a DHAT file the writer wrote).
# Fixtures in tests/data/export/; outputs and Chromium screenshots are kept in
# <build>/tests/artifacts/. Optional tools: go (go tool pprof), xmllint, chromium: a
# visible skip without them, a failure under CI=true.
add_criterion_test(export_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/export_folded_unit.c
		${CMAKE_CURRENT_SOURCE_DIR}/export_pprof_unit.c
		${CMAKE_CURRENT_SOURCE_DIR}/export_svg_unit.c
		${CMAKE_CURRENT_SOURCE_DIR}/export_timeline_unit.c
		${CMAKE_CURRENT_SOURCE_DIR}/export_helpers.c
	LIBS tracer_core dhat_fixture
	LABELS unit)
# export_timeline_unit.c checks a file our writer wrote in Valgrind's real dh_view.
target_compile_definitions(export_unit PRIVATE
	DHVIEW_CHECK="${CMAKE_CURRENT_SOURCE_DIR}/tools/dhview_check.py")
# Chromium runs (4-6 s each) and go tool pprof: more than ctest's default is not needed,
# but leave headroom on a loaded 2-core machine.
tracer_test_timeout(export_unit 600)
