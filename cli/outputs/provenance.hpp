// Where a result came from: the version and the source commit, written into every output
// (HDF5 root attributes) and printed by --version, so that a number can be traced to its code.
#pragma once

namespace lb::cli {

/// The commit the command was built from ("1a2b3c4d5e6f", with "-dirty" where tracked files had
/// uncommitted changes; "unknown" outside a git checkout). Generated at build time.
const char* source_commit();

}  // namespace lb::cli
