# Replays every kaish fuzz corpus file (seeds and every input that ever crashed a fuzzer)
# through lex/parse/validate and kaish_execute, with the fuzzers' own checks: label unit, so
# fixed crashes stay fixed in the normal suite (and under .ci/sanitize.sh).
add_criterion_test(kaish_fuzz_regress_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kaish_fuzz_regress_unit.c
		${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_kaish_parse.c
		${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_kaish_exec.c
	LIBS kaish Threads::Threads
	LABELS unit)
target_compile_definitions(kaish_fuzz_regress_unit PRIVATE KAISH_FUZZ_NO_MAIN
	KAISH_FUZZ_CORPUS="${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus")
target_include_directories(kaish_fuzz_regress_unit PRIVATE ${PROJECT_SOURCE_DIR}/kernel-under-test/src)
tracer_test_timeout(kaish_fuzz_regress_unit 600)

