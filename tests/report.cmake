# `tracer report` / `tracer diff` (report.c, diff.c, dhat_reader.c, cli_report.c,
# cli_diff.c): unit tests on synthetic files, files our writer produces, and real files
# produced right now by Valgrind's DHAT. Needs dhat_fixture/dhat_invariants (collector.cmake,
# included before this file).

# The prog.c example of dhat-format.md §7.1, run under Valgrind's DHAT by report_unit.
add_executable(dhat_vg_prog ${CMAKE_CURRENT_SOURCE_DIR}/data/vg_prog.c)
# Run twice (arguments 1 and 2) under Valgrind's DHAT by diff_unit.
add_executable(dhat_vg_diff_prog ${CMAKE_CURRENT_SOURCE_DIR}/data/report/vg_diff_prog.c)
foreach(t dhat_vg_prog dhat_vg_diff_prog)
	# -O0 keeps every allocation; no sanitizer runtime, which cannot run under Valgrind.
	target_compile_options(${t} PRIVATE -O0 -g -fno-sanitize=all)
	target_link_options(${t} PRIVATE -fno-sanitize=all)
endforeach()

add_criterion_test(report_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/report_unit.c
	LIBS tracer_core dhat_fixture dhat_invariants
	LABELS unit)
target_compile_definitions(report_unit PRIVATE VG_PROG="$<TARGET_FILE:dhat_vg_prog>")
add_dependencies(report_unit dhat_vg_prog)

add_criterion_test(diff_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/diff_unit.c
	LIBS tracer_core
	LABELS unit)
target_compile_definitions(diff_unit PRIVATE
	VG_DIFF_PROG="$<TARGET_FILE:dhat_vg_diff_prog>")
add_dependencies(diff_unit dhat_vg_diff_prog)

# Peak RSS and time of loading a big file (not a ctest test): see
# tests/data/report/rss_bench.sh, which generates a ~200 MB DHAT file and runs this.
add_executable(report_bench ${CMAKE_CURRENT_SOURCE_DIR}/report_bench.c)
target_compile_options(report_bench PRIVATE ${TRACER_WARNINGS})
target_link_libraries(report_bench PRIVATE tracer_core)
