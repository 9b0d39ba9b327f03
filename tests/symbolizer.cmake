# Symbolizer tests: fixture programs built here with explicit flags, then one Criterion binary.
#
# symfix/ in the build dir holds every fixture, next to each other:
#   libsymfix.so          shared library, -g -O2
#   libsymfix_dl.so       dlopen()ed later by the fixture (maps refresh)
#   symfix_pie            PIE executable, -g -O2 (inlined calls)
#   symfix_nopie          non-PIE (ET_EXEC) executable, -g -O2
#   symfix_stripped       symfix_pie after strip --strip-all (no .symtab, no DWARF)
#   symfix_nodebug        symfix_pie after objcopy --strip-debug (.symtab only)
#   symfix_split          stripped, with .gnu_debuglink to symfix_split.debug next to it
#   symfix_cxx            C++ (g++ -g -O2): std::vector / std::string members inlined into it
set(SYMFIX_SRC ${CMAKE_CURRENT_SOURCE_DIR}/data/symbolizer)
set(SYMFIX_DIR ${CMAKE_CURRENT_BINARY_DIR}/symfix)
# -fno-optimize-sibling-calls: keep the calls whose return addresses the tests look up.
set(SYMFIX_CFLAGS -g -O2 -fno-optimize-sibling-calls -Wall -Wextra -Werror)

add_library(symfix SHARED ${SYMFIX_SRC}/fixture_lib.c)
target_compile_options(symfix PRIVATE ${SYMFIX_CFLAGS} -fPIC)
set_target_properties(symfix PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${SYMFIX_DIR})

add_library(symfix_dl MODULE ${SYMFIX_SRC}/fixture_dl.c)
target_compile_options(symfix_dl PRIVATE ${SYMFIX_CFLAGS} -fPIC)
set_target_properties(symfix_dl PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${SYMFIX_DIR}
	PREFIX "lib")

add_executable(symfix_pie ${SYMFIX_SRC}/fixture.c)
target_compile_options(symfix_pie PRIVATE ${SYMFIX_CFLAGS} -fPIE)
target_link_options(symfix_pie PRIVATE -pie)
target_link_libraries(symfix_pie PRIVATE symfix ${CMAKE_DL_LIBS})
set_target_properties(symfix_pie PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${SYMFIX_DIR})

add_executable(symfix_nopie ${SYMFIX_SRC}/fixture.c)
target_compile_options(symfix_nopie PRIVATE ${SYMFIX_CFLAGS} -fno-pie)
target_link_options(symfix_nopie PRIVATE -no-pie)
target_link_libraries(symfix_nopie PRIVATE symfix ${CMAKE_DL_LIBS})
set_target_properties(symfix_nopie PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${SYMFIX_DIR})

# -fno-sanitize=all: under TRACER_SANITIZE, ASan would bring its own operator new, which the
# fixture replaces; like every fixture it must look like ordinary release code.
add_executable(symfix_cxx ${SYMFIX_SRC}/fixture_cxx.cc)
target_compile_options(symfix_cxx PRIVATE ${SYMFIX_CFLAGS} -fno-sanitize=all)
target_link_options(symfix_cxx PRIVATE -fno-sanitize=all)
target_link_libraries(symfix_cxx PRIVATE ${CMAKE_DL_LIBS})
set_target_properties(symfix_cxx PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${SYMFIX_DIR})

add_custom_command(
	OUTPUT ${SYMFIX_DIR}/symfix_stripped ${SYMFIX_DIR}/symfix_nodebug
		${SYMFIX_DIR}/symfix_split ${SYMFIX_DIR}/symfix_split.debug
	COMMAND ${CMAKE_STRIP} --strip-all -o ${SYMFIX_DIR}/symfix_stripped
		$<TARGET_FILE:symfix_pie>
	COMMAND ${CMAKE_OBJCOPY} --strip-debug $<TARGET_FILE:symfix_pie>
		${SYMFIX_DIR}/symfix_nodebug
	COMMAND ${CMAKE_OBJCOPY} --only-keep-debug $<TARGET_FILE:symfix_pie>
		${SYMFIX_DIR}/symfix_split.debug
	COMMAND ${CMAKE_OBJCOPY} --strip-all
		--add-gnu-debuglink=${SYMFIX_DIR}/symfix_split.debug
		$<TARGET_FILE:symfix_pie> ${SYMFIX_DIR}/symfix_split
	DEPENDS symfix_pie
	COMMENT "Symbolizer fixtures: stripped copies"
	VERBATIM)
add_custom_target(symfix_copies DEPENDS ${SYMFIX_DIR}/symfix_stripped
	${SYMFIX_DIR}/symfix_nodebug ${SYMFIX_DIR}/symfix_split)

add_criterion_test(symbolizer_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/symbolizer_unit.c
		${CMAKE_CURRENT_SOURCE_DIR}/symbolizer_bench.c
		${CMAKE_CURRENT_SOURCE_DIR}/symbolizer_fixture.c
	LIBS tracer_core
	LABELS unit)
target_compile_definitions(symbolizer_unit PRIVATE SYMFIX_DIR="${SYMFIX_DIR}")
add_dependencies(symbolizer_unit symfix_pie symfix_nopie symfix_dl symfix_copies symfix_cxx)
