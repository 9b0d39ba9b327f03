// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// Heavy C++ STL names for the demangler, end to end (tests/sites_e2e.c): built -O0, so
// every std::map<std::string, std::vector<std::string>> member it calls is a function of its
// own in this executable, named in its symbol table (nm -C prints them as c++filt does).
#include <map>
#include <string>
#include <vector>

static std::map<std::string, std::vector<std::string>> index_;

int main()
{
	for (int i = 0; i < 200; i++)
		index_[std::string("a-rather-long-key-") + std::to_string(i % 50)].push_back(
			std::string(40, 'x'));
	return index_.size() == 50 ? 0 : 1;
}
