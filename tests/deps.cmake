# The runtime package list is kept once (deps/debian-runtime.txt: the .deb's Depends); the
# README and docs/USAGE.md must say the same (tests/tools/deps_docs_check.cmake).
add_test(NAME deps_docs_unit
	COMMAND ${CMAKE_COMMAND} -DSRC=${PROJECT_SOURCE_DIR}
		-P ${CMAKE_CURRENT_SOURCE_DIR}/tools/deps_docs_check.cmake)
set_tests_properties(deps_docs_unit PROPERTIES LABELS unit)
