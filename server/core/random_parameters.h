// The checks of a random creation's dtype and parameters, with numpy.random.Generator's
// defaults and messages (see PlanRandom in creation.cc).
#pragma once

#include <absl/status/statusor.h>

#include <optional>

#include "server/backend/compute.h"
#include "server/common/dtype.h"

namespace arrayhub {

struct RandomKind;

// The output dtype of a random draw: `requested`, or the distribution's default (int64 for
// integers and the counts of binomial, poisson, geometric and negative_binomial, float64
// otherwise), refused
// when the distribution draws no values of it.
absl::StatusOr<DType> RandomDType(RandomDistribution distribution, std::optional<DType> requested);

// InvalidArgument with NumPy's message when a parameter lies outside its distribution's domain.
absl::Status CheckRandomParameters(const RandomKind& r, DType dtype);

}  // namespace arrayhub
