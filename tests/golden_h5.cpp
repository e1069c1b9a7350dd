// Bitwise regression of the command line: every dataset of the HDF5 files that README's example
// configs produce (ctest example.cli.*), hashed and compared with tests/golden/examples.txt.
// Attributes are left out: they hold dates, timings and the command line.
//   golden_h5 RECORD FILE.h5 ...      exit 0 when every dataset matches, 1 otherwise
// Only the recorded datasets of the files given are compared (chain20.h5 exists where the build
// holds the chain of 20 links). With LIEBATCH_GOLDEN_WRITE set it records the hashes instead.
#include <hdf5.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "golden_hash.hpp"

namespace {

struct Visit {
  std::string file;
  std::map<std::string, std::string>* out;
};

/// Hashes the dataset `name` (groups are skipped): its shape and its bytes in native layout.
herr_t hash_dataset(hid_t root, const char* name, const H5L_info_t*, void* data) {
  auto& v = *static_cast<Visit*>(data);
  H5O_info_t info;
  if (H5Oget_info_by_name(root, name, &info, H5P_DEFAULT) < 0) return -1;
  if (info.type != H5O_TYPE_DATASET) return 0;
  const hid_t d = H5Dopen2(root, name, H5P_DEFAULT);
  const hid_t sp = H5Dget_space(d), ft = H5Dget_type(d), mt = H5Tget_native_type(ft, H5T_DIR_ASCEND);
  std::vector<hsize_t> dims(std::size_t(H5Sget_simple_extent_ndims(sp)));
  H5Sget_simple_extent_dims(sp, dims.data(), nullptr);
  std::size_t n = 1;
  for (auto x : dims) n *= std::size_t(x);
  std::vector<unsigned char> buf(n * H5Tget_size(mt));
  const herr_t r = n == 0 ? 0 : H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data());
  lbtest::Fnv h;
  h.add(std::vector<unsigned long long>(dims.begin(), dims.end()));
  h.add(buf);
  (*v.out)[v.file + ":/" + name] = h.hex();
  H5Tclose(mt); H5Tclose(ft); H5Sclose(sp); H5Dclose(d);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: golden_h5 RECORD FILE.h5 ...\n";
    return 2;
  }
  std::map<std::string, std::string> got;
  std::set<std::string> given;  // file names: a build without the long chains makes no chain20.h5
  for (int k = 2; k < argc; ++k) {
    const hid_t f = H5Fopen(argv[k], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
      std::cerr << "cannot open " << argv[k] << "\n";
      return 1;
    }
    Visit v{std::filesystem::path(argv[k]).filename().string(), &got};
    given.insert(v.file);
    const herr_t r = H5Lvisit(f, H5_INDEX_NAME, H5_ITER_INC, hash_dataset, &v);
    H5Fclose(f);
    if (r < 0) {
      std::cerr << "cannot read the datasets of " << argv[k] << "\n";
      return 1;
    }
  }
  // The recorded datasets of the files given; the others are kept as recorded.
  std::map<std::string, std::string> recorded, others;
  for (const auto& [name, h] : lbtest::read_golden(argv[1])) (given.count(name.substr(0, name.find(':'))) ? recorded : others)[name] = h;
  if (std::getenv("LIEBATCH_GOLDEN_WRITE")) {
    others.insert(got.begin(), got.end());
    std::ofstream out(argv[1]);
    for (const auto& [name, h] : others) out << h << "  " << name << "\n";
    std::cout << "recorded " << got.size() << " datasets in " << argv[1] << "\n";
    return 0;
  }
  int bad = 0;
  for (const auto& [name, h] : recorded) {
    const auto it = got.find(name);
    if (it == got.end()) { std::cout << "missing: " << name << "\n"; ++bad; }
    else if (it->second != h) { std::cout << "differs: " << name << "\n"; ++bad; }
  }
  for (const auto& [name, h] : got)
    if (!recorded.count(name)) { std::cout << "not recorded: " << name << "\n"; ++bad; }
  std::cout << got.size() << " datasets, " << recorded.size() << " recorded, " << bad << " differ";
  if (!others.empty()) std::cout << "; " << others.size() << " recorded datasets of files not made by this build left unchecked";
  std::cout << "\n";
  return bad == 0 && !recorded.empty() ? 0 : 1;
}
