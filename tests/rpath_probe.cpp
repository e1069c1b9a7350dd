// A stand-in for libz.so.1, alone in a directory: were the loader to search the current directory
// for `liebatch`'s libraries (an empty RUNPATH entry), a program started there would load this one,
// and it says so (test cli.no_libraries_from_cwd).
#include <cstdio>

__attribute__((constructor)) static void loaded() { std::fputs("rpath probe: loaded from the current directory\n", stderr); }
