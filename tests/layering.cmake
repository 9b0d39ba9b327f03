# The layering the libraries' link lines promise, checked where it can break:
#  - live_path_link_unit: every object of the live path's libraries (loader, trace, stacks, dhat,
#    model, site, symbolize, util), pulled in whole, links without tracer_analyze (report,
#    diff): a reference from any of them into the offline analysis fails the build;
#  - include_cycles_unit: no two modules of user/ include each other, directly or around a
#    circle (tests/include_cycles.py).
# The archives by file, not as targets: a target would bring the libraries it links along.
set(LIVE_PATH_LIBS tracer_loader tracer_trace tracer_stacks tracer_python tracer_dhat tracer_model
	tracer_site tracer_symbolize tracer_util)
set(live_path_archives)
foreach(lib ${LIVE_PATH_LIBS})
	list(APPEND live_path_archives $<TARGET_FILE:${lib}>)
endforeach()
# demangle.c's libstdc++ callback comes from libstdc++.a (user/symbolize/CMakeLists.txt).
execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libstdc++.a
	OUTPUT_VARIABLE live_path_libstdcxx OUTPUT_STRIP_TRAILING_WHITESPACE)
add_executable(live_path_link_unit ${CMAKE_CURRENT_SOURCE_DIR}/live_path_link_unit.c)
add_dependencies(live_path_link_unit ${LIVE_PATH_LIBS})
target_link_libraries(live_path_link_unit PRIVATE -Wl,--whole-archive ${live_path_archives}
	-Wl,--no-whole-archive PkgConfig::LIBBPF PkgConfig::LIBELF PkgConfig::LIBDW
	PkgConfig::ZLIB ${live_path_libstdcxx} stdc++ Threads::Threads m)
add_test(NAME live_path_link_unit COMMAND live_path_link_unit)
set_tests_properties(live_path_link_unit PROPERTIES LABELS unit)

find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_test(NAME include_cycles_unit
	COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/include_cycles.py
		${PROJECT_SOURCE_DIR}/user)
set_tests_properties(include_cycles_unit PROPERTIES LABELS unit)
