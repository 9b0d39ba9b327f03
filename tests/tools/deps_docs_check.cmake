# cmake -DSRC=<source dir> -P deps_docs_check.cmake: README.md and docs/USAGE.md name the
# runtime packages exactly as deps/debian-runtime.txt lists them (the .deb's Depends, read
# by the top-level CMakeLists.txt), as "(deps/debian-runtime.txt): a, b, c".
file(STRINGS ${SRC}/deps/debian-runtime.txt deps REGEX "^[^#]")
list(JOIN deps ", " joined)
set(want "(deps/debian-runtime.txt): ${joined}")
foreach(doc README.md docs/USAGE.md)
	file(READ ${SRC}/${doc} text)
	# The docs wrap lines: compare with every run of white space as one space.
	string(REGEX REPLACE "[ \t\r\n]+" " " text "${text}")
	string(FIND "${text}" "${want}" at)
	if(at EQUAL -1)
		message(FATAL_ERROR "${doc} does not list the runtime packages as "
			"deps/debian-runtime.txt does; it should say: ${want}")
	endif()
endforeach()
message(STATUS "README.md and docs/USAGE.md list: ${joined}")
