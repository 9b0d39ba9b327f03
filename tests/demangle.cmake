# demangle (user/symbolize/demangle.c): Rust legacy / v0 and C++ names to readable ones, and its
# fuzzing corpus replayed (tests/fuzz/corpus/fuzz_demangle/, see tests/fuzz/run_fuzzers.sh).
add_criterion_test(demangle_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/demangle_unit.c
	LIBS tracer_core
	LABELS unit)
