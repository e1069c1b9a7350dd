// The float half of test_ensemble_packed.cpp's every-case comparison, in a unit of its own so that
// the two precisions compile in parallel.
#include "ensemble_packed_cases.hpp"

TEST(EnsemblePacked, EqualsTheScalarEngineWithinTheBoundFloat) { lbtest::every_case_within_bound<float>(); }
