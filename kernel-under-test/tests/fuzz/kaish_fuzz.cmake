# libFuzzer targets for the shell kernel (clang only): included by kernel-under-test/
# CMakeLists.txt when TRACER_FUZZ is ON.
#
#   fuzz_kaish_parse   lexer (lex_tokenize, lex_match) + parser + validator, nothing runs
#   fuzz_kaish_exec    kaish_execute on a sandboxed agent kernel (2 KiB output limit,
#                      200 ms request timeout), checking the result contract and the sandbox
#
# Seeds: corpus/<target>/ beside this file (make_seed_corpus.py); run them with
# run_kaish_fuzzers.sh. The kernel is rebuilt here as kaish_fuzzlib with coverage
# instrumentation (-fsanitize=fuzzer-no-link) plus ASan and UBSan.
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
	message(STATUS "kaish fuzzers: need clang (CC=clang), skipped")
	return()
endif()

set(KAISH_FUZZ_SAN -fsanitize=address,undefined -fno-sanitize-recover=undefined)
set(KAISH_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR})

add_library(kaish_fuzzlib STATIC ${KAISH_SOURCES})
target_include_directories(kaish_fuzzlib PUBLIC ${PROJECT_SOURCE_DIR}/kernel-under-test/include
	${PROJECT_SOURCE_DIR}/kernel-under-test/src)
target_compile_options(kaish_fuzzlib PRIVATE ${KAISH_WARNINGS} -Wno-unknown-warning-option
	PUBLIC -g -O1 -fsanitize=fuzzer-no-link ${KAISH_FUZZ_SAN})
target_link_libraries(kaish_fuzzlib PUBLIC Threads::Threads m)

# -Wno-missing-prototypes: libFuzzer's LLVMFuzzerTestOneInput has no header to declare it.
set(FUZZ_HARNESS_WARNINGS -Wno-unknown-warning-option -Wno-missing-prototypes)
foreach(target fuzz_kaish_parse fuzz_kaish_exec)
	add_executable(${target} ${KAISH_FUZZ_DIR}/${target}.c)
	target_compile_options(${target} PRIVATE ${TRACER_WARNINGS} ${FUZZ_HARNESS_WARNINGS}
		-fsanitize=fuzzer)
	target_link_options(${target} PRIVATE -fsanitize=fuzzer ${KAISH_FUZZ_SAN})
	target_link_libraries(${target} PRIVATE kaish_fuzzlib)
endforeach()
