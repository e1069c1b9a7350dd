// liebatch: ensembles of Lie group integrations from a JSON config, to HDF5, CSV and PNG.
// Exit status: 0 success; 1 a check failed (validate above its bound, or no member of a run
// finished); 2 bad command line or config; 3 a file could not be read or written; 4 any other
// error. A failed run leaves no output file behind and never replaces a file it did not write.
#include "commands.hpp"

int main(int argc, char** argv) { return lb::cli::cli_main(argc, argv); }
