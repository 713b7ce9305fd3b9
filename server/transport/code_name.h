// gRPC's canonical status code names, as clients print them ("INVALID_ARGUMENT"), for the
// request log and the metrics' `code` label.
#pragma once

#include <grpcpp/support/status.h>

namespace arrayhub {

// "UNKNOWN" for a value outside the canonical codes.
const char* CodeName(grpc::StatusCode code);

}  // namespace arrayhub
